/** Agent tools: the agent reaches the chats that watch its session. */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { describe, type Json } from "./callbacks.ts";
import { controlCall } from "./link.ts";

// Agent tools: the agent reaches the chats that watch its session

export const RELAY_TOOLS = ["relay_notify", "relay_send_file", "spawn_session"];

/** What a relay tool answers while no chat watches its terminal session. */
export const NO_CHAT_WATCHING = "no chat is watching this session";

/**
 * Registers relay_notify, relay_send_file and spawn_session (each only if no tool of its name
 * exists), once: they stay active whether a chat watches or not, since a run keeps the tools it
 * started with and every change re-bills the whole prompt cache (spec §11 trap 14). Each asks
 * the daemon on a connection of its own and fails with the daemon's reason (no chat watches the
 * session, a path outside the workspace, the spawn limit) as the tool's error, which the agent
 * reads. `watching`, in a terminal session, answers "no chat is watching" without asking.
 */
export function registerRelayTools(
  pi: ExtensionAPI,
  socketPath: string,
  sessionID: () => string | undefined,
  watching?: () => boolean,
): string[] {
  const existing = new Set(pi.getAllTools().map((tool: any) => tool.name));
  const call = async (method: string, params: Json): Promise<Json> => {
    const session = sessionID();
    if (!session) throw new Error(`this pi is not attached to pi-relayd, so ${NO_CHAT_WATCHING}`);
    if (watching && !watching()) throw new Error(NO_CHAT_WATCHING);
    try {
      return await controlCall(socketPath, method, { ...params, session }, 90_000);
    } catch (error) {
      throw new Error(`pi-relayd: ${describe(error)}`);
    }
  };
  const tools: Json[] = [
    {
      name: "relay_notify",
      label: "Notify the chats",
      description:
        "Post a short progress message to the chat(s) watching this session (pi-relayd), without ending your turn. " +
        "Use it sparingly, for milestones the user would want to hear about while you keep working.",
      parameters: { type: "object", properties: { text: { type: "string", description: "The message, one or two lines." } }, required: ["text"] },
      async execute(_id: string, params: any) {
        const result = await call("relay-notify", { text: String(params?.text ?? "") });
        return { content: [{ type: "text", text: `posted to ${result.posted ?? 0} chat(s)` }], details: result };
      },
    },
    {
      name: "relay_send_file",
      label: "Send a file to the chat",
      description:
        "Send a file from this session's workspace to the chat that asked for the current work (pi-relayd). " +
        "The path is relative to the workspace; files outside it, and secrets such as .env or keys, are refused.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "The file, relative to the workspace." },
          caption: { type: "string", description: "A line to show with it." },
        },
        required: ["path"],
      },
      async execute(_id: string, params: any) {
        const fields: Json = { path: String(params?.path ?? "") };
        if (typeof params?.caption === "string") fields.caption = params.caption;
        const result = await call("relay-file", fields);
        return { content: [{ type: "text", text: `sent ${result.sent ?? fields.path} to ${result.chats ?? 0} chat(s)` }], details: result };
      },
    },
    {
      name: "spawn_session",
      label: "Spawn a session",
      description:
        "Start a new, separate pi session in a folder, with its own thread in the chat that asked for the current work (pi-relayd), " +
        "optionally with a first task. Use it to hand off independent work; the new session does not share your context. " +
        "Returns the new session's id and name.",
      parameters: {
        type: "object",
        properties: {
          cwd: { type: "string", description: "The folder to work in: absolute, ~/..., or relative to this session's folder." },
          name: { type: "string", description: "A short name for the session and its thread." },
          prompt: { type: "string", description: "The new session's first task; leave it out to start it idle." },
        },
        required: ["cwd"],
      },
      async execute(_id: string, params: any) {
        const fields: Json = { cwd: String(params?.cwd ?? "") };
        if (typeof params?.name === "string" && params.name) fields.name = params.name;
        if (typeof params?.prompt === "string" && params.prompt) fields.prompt = params.prompt;
        const result = await call("spawn-session", fields);
        const where = result.thread ? "in a new thread" : `without a thread: ${result.note ?? "none could be opened"}`;
        const task = result.prompted ? ", working on its first task" : ", idle";
        return {
          content: [{ type: "text", text: `started session ${result.name} (id ${result.session}) in ${result.cwd} ${where}${task}` }],
          details: result,
        };
      },
    },
  ];
  const registered: string[] = [];
  for (const tool of tools) {
    if (existing.has(tool.name)) continue;
    pi.registerTool(tool as any);
    registered.push(tool.name);
  }
  return registered;
}
