// undici's dispatchers and its `request()` by their own files (src/internal/pooled-dispatcher.ts): undici declares
// types for its index only. Each file is CommonJS exporting one value, which an import gives as `default`.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const agent: typeof Agent;
  export default agent;
}

declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';

  const envHttpProxyAgent: typeof EnvHttpProxyAgent;
  export default envHttpProxyAgent;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';

  const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
