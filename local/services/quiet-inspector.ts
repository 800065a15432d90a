import WebSocket from "ws";

/**
 * wrangler dev's inspector proxy turns on the runtime's Network domain, so every outbound fetch of a Worker
 * (each SQL-over-HTTP statement, each SQS call) sends the proxy several inspector events; the proxy parses
 * each, posts it as a debug log to wrangler's Node process, and keeps it in a buffer that only a debugger
 * drains. Measured through `npm start`: a request's fetch cost 1.5–2.7 ms of CPU across wrangler's two workerd
 * processes, against about 0.1 ms in workerd alone, and a deployed Worker does none of this.
 *
 * Until a person wants the debugger, the launcher is the one client the proxy allows: it turns the Network
 * domain off, again whenever a reload gives the runtime a new context (the proxy turns it back on), and
 * discards what it receives. `stop()` leaves the inspector free.
 */
export function quietInspector(port: number, log: (message: string) => void): { ready: Promise<boolean>; stop(): void } {
  let socket: WebSocket | undefined;
  let stopped = false;
  let id = 0;
  let settle: (held: boolean) => void = () => {};
  /** True once the inspector is held (a refused client is closed within moments of opening); false if not. */
  const ready = new Promise<boolean>((resolve) => (settle = resolve));
  const disableNetwork = () => socket?.send(JSON.stringify({ id: ++id, method: "Network.disable" }));

  const connect = async (attempt: number): Promise<void> => {
    if (stopped) return;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(5000) });
      const [target] = (await res.json()) as { webSocketDebuggerUrl?: string }[];
      if (!target?.webSocketDebuggerUrl) throw new Error("no inspector target yet");
      // A stop that came while /json was asked: opening the socket now would hold the inspector past the stop.
      if (stopped) return;
      const ws = new WebSocket(target.webSocketDebuggerUrl);
      socket = ws;
      ws.on("open", () => {
        disableNetwork();
        setTimeout(() => settle(ws.readyState === WebSocket.OPEN), 500).unref();
      });
      ws.on("message", (data) => {
        // A reload: the proxy enabled the Network domain of the new context just before this event.
        if (data.toString().includes('"Runtime.executionContextCreated"')) disableNetwork();
      });
      ws.on("error", () => {});
      // Someone else may hold the inspector (a debugger attached first): then nothing is to be done.
      ws.on("close", (code) => {
        settle(false);
        if (!stopped && code === 1013) log("A debugger holds the inspector: outbound fetches carry its network log.");
      });
    } catch {
      if (stopped) return;
      if (attempt < 20) setTimeout(() => void connect(attempt + 1), 500).unref();
      else {
        settle(false);
        log(`The inspector on port ${port} did not answer: outbound fetches carry its network log.`);
      }
    }
  };
  void connect(1);

  return {
    ready,
    stop() {
      stopped = true;
      settle(false);
      socket?.terminate();
    },
  };
}
