/**
 * Another extension's `ask_user`, as pidash users have it from pi-config (and as the public
 * pi-ask-user package has it): `{question, context?, options?}`, options as strings or
 * `{label}`, asked with ctx.ui.select (options) or ctx.ui.input (none) in the terminal only.
 * Loaded beside pi-relayd in tests of questions from other extensions.
 */
export default function askUser(pi: any): void {
  pi.registerTool({
    name: "ask_user",
    label: "Ask user",
    description: "Ask the user a question (pi-config's ask_user, as the fake host has it).",
    parameters: {
      type: "object",
      properties: {
        question: { type: "string" },
        context: { type: "string" },
        options: { type: "array", items: { anyOf: [{ type: "string" }, { type: "object", properties: { label: { type: "string" } } }] } },
      },
      required: ["question"],
    },
    async execute(_id: string, params: any, signal: AbortSignal | undefined, _onUpdate: unknown, ctx: any) {
      const options = (params.options ?? []).map((o: any) => (typeof o === "string" ? o : o?.label)).filter(Boolean);
      const title = params.context ? `${params.question}\n${params.context}` : params.question;
      const answer = options.length > 0 ? await ctx.ui.select(title, options, { signal }) : await ctx.ui.input(title, undefined, { signal });
      if (answer === undefined) return { content: [{ type: "text", text: "The user did not answer." }], details: { answer: null } };
      return { content: [{ type: "text", text: `User answered: ${answer}` }], details: { answer } };
    },
  });
}
