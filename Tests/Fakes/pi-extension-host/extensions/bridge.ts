/**
 * Another extension's terminal command, as seed 004's pi-session-bridge has `/bridge:status`.
 * Loaded beside pi-relayd in tests of slash commands sent from a chat.
 */
export default function bridge(pi: any): void {
  pi.registerCommand("bridge:status", {
    description: "Show socket and registry paths.",
    async handler(_args: string, ctx: any) {
      ctx.ui.notify("bridge: socket /tmp/bridge.sock", "info");
    },
  });
}
