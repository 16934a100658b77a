import Logging
import PiRelaySDK

/// Bots have no typing indicator in Slack, so the prompt itself shows the work: ⏳ while the
/// agent runs, then ✅ with the answer or ❌ when the run failed. Which prompts wait for an answer
/// in each place is saved, so a restarted plugin still finishes their reactions.
actor Progress {
    static let file = "progress.json"
    static let working = "hourglass_flowing_sand"
    static let done = "white_check_mark"
    static let failed = "x"

    struct Prompt: Codable, Sendable, Equatable {
        var channel: String
        var ts: String
    }

    private let poster: Poster
    private let store: StateStore
    private let logger: Logger
    private var waiting: [String: [Prompt]]

    init(poster: Poster, store: StateStore, logger: Logger) {
        self.poster = poster
        self.store = store
        self.logger = logger
        waiting = store.load([String: [Prompt]].self, from: Self.file) ?? [:]
    }

    var count: Int { waiting.values.reduce(0) { $0 + $1.count } }

    /// The prompt `ts` in `place` went to the agent.
    func started(_ ts: String, in place: Place) async {
        let prompt = Prompt(channel: place.channel, ts: ts)
        guard !(waiting[place.key]?.contains(prompt) ?? false) else { return }
        waiting[place.key, default: []].append(prompt)
        await store.save(waiting, to: Self.file)
        await react(Self.working, prompt, add: true)
    }

    /// The answer (or the failure) arrived in `place`: every prompt waiting there is done.
    func finished(in place: Place, ok: Bool) async {
        guard let prompts = waiting.removeValue(forKey: place.key), !prompts.isEmpty else { return }
        await store.save(waiting, to: Self.file)
        for prompt in prompts {
            await react(Self.working, prompt, add: false)
            await react(ok ? Self.done : Self.failed, prompt, add: true)
        }
    }

    private func react(_ name: String, _ prompt: Prompt, add: Bool) async {
        do { try await poster.react(name, on: prompt.ts, in: prompt.channel, add: add) } catch {
            logger.debug("reaction \(name) on \(prompt.channel)/\(prompt.ts): \(error)")
        }
    }
}
