/** The one query the sign-in tests call as an operator's page would: any credential, any mode. */
export const models = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/trpc/gpu.models`, { headers });

/** `GET /session` as the web app's sign-in gate asks it, with the browser's cookie. */
export const sessionOf = (url: string, cookie: string) =>
  fetch(`${url}/session`, { headers: { accept: 'application/json', cookie } });
