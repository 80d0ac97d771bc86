/** What the app's Hono routes and middleware share about one request. */

/** What the runtime knows of the connection a request came on (the Node adapter passes it; others may). */
export interface ConnectionInfo {
  /** The client's address, for per-client quotas (behind a proxy: the proxy's). */
  clientAddress?: string | undefined;
}

/** The Hono environment of `createApp`'s routes: the connection (`c.env`) and what middleware read once (`c.var`). */
export type AppEnv = {
  Bindings: ConnectionInfo;
  Variables: {
    /** The caller's session id, read once by the session middleware (undefined: none yet). */
    session: string | undefined;
    /** Set when a static file answers, so the security headers are the static kind. */
    staticFile: boolean;
  };
};
