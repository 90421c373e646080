import net from 'node:net';

/**
 * Preloaded (`--import`) into every process a documented example starts: a connection to anything but loopback is
 * refused, and reported on stderr so that the docs test fails the block even when the example swallows the error.
 */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/;
export const NETWORK_MARK = 'docs-test: network refused:';

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  const host = typeof options.host === 'string' ? options.host.replace(/^\[|\]$/g, '') : 'localhost';
  if (options.path === undefined && !LOOPBACK.test(host)) {
    process.stderr.write(`${NETWORK_MARK} ${host}\n`);
    process.nextTick(() => this.destroy(new Error(`${NETWORK_MARK} ${host} (examples run offline)`)));
    return this;
  }
  return (connect as (...rest: any[]) => net.Socket).apply(this, args);
} as typeof connect;
