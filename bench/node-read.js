// Baseline (b): what the Node bridges do with pi's stdout: split lines, JSON.parse each.
const readline = require("readline");
let events = 0, deltaChars = 0;
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line) return;
  const e = JSON.parse(line);
  events++;
  const a = e.assistantMessageEvent;
  if (e.type === "message_update" && a && a.type === "text_delta") deltaChars += [...a.delta].length;
});
rl.on("close", () => console.log(`events=${events} deltaChars=${deltaChars}`));
