import Logging
import PiRelaySDK

/// Bots have no typing indicator in Slack, so the prompt itself shows the work: ⏳ while the
/// agent runs, then ✅ with the answer or ❌ when the run failed. Which prompts wait for an answer
/// in each place is saved, so a restarted plugin still finishes their reactions.
///
/// The reactions are only a sign, and `reactions.add` has a budget of its own (Tier 3): they
/// never hold a hand-over or a delivery. `started` and `finished` note what a prompt should show
/// and return; `run` puts it on, one call at a time, with what is left to do: a prompt answered
/// before its ⏳ went gets ✅ alone.
actor Progress {
    static let file = "progress.json"
    static let working = "hourglass_flowing_sand"
    static let done = "white_check_mark"
    static let failed = "x"

    struct Prompt: Codable, Sendable, Hashable {
        var channel: String
        var ts: String
    }

    /// What a prompt should show, and what it shows.
    private struct Marks {
        var wanted: String
        var shown: String?
    }

    private let poster: Poster
    private let store: StateStore
    private let logger: Logger
    private var waiting: [String: [Prompt]]
    /// Prompts whose reaction is not what it should be yet, in the order they changed.
    private var marks: [Prompt: Marks] = [:]
    private var order: [Prompt] = []
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(poster: Poster, store: StateStore, logger: Logger) {
        self.poster = poster
        self.store = store
        self.logger = logger
        waiting = store.load([String: [Prompt]].self, from: Self.file) ?? [:]
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // A prompt waiting since before a restart may show ⏳: its answer takes it off.
        for prompt in waiting.values.joined() { marks[prompt] = Marks(wanted: Self.working, shown: Self.working) }
    }

    var count: Int { waiting.values.reduce(0) { $0 + $1.count } }

    /// The prompt `ts` in `place` went to the agent.
    func started(_ ts: String, in place: Place) async {
        let prompt = Prompt(channel: place.channel, ts: ts)
        guard !(waiting[place.key]?.contains(prompt) ?? false) else { return }
        waiting[place.key, default: []].append(prompt)
        await store.save(waiting, to: Self.file)
        want(Self.working, on: prompt)
    }

    /// The answer (or the failure) arrived in `place`: every prompt waiting there is done.
    func finished(in place: Place, ok: Bool) async {
        guard let prompts = waiting.removeValue(forKey: place.key), !prompts.isEmpty else { return }
        await store.save(waiting, to: Self.file)
        for prompt in prompts { want(ok ? Self.done : Self.failed, on: prompt) }
    }

    /// Puts the reactions on as they are wanted, until cancelled.
    func run() async {
        for await _ in wakes {
            while let prompt = order.first {
                order.removeFirst()
                guard let mark = marks[prompt] else { continue }
                if mark.shown == mark.wanted {
                    if mark.wanted != Self.working { marks[prompt] = nil }
                    continue
                }
                if let shown = mark.shown { await react(shown, prompt, add: false) }
                await react(mark.wanted, prompt, add: true)
                // What it should show may have changed meanwhile: then it is in line again.
                if var now = marks[prompt] {
                    now.shown = mark.wanted
                    marks[prompt] = now.wanted == now.shown && now.wanted != Self.working ? nil : now
                }
                if Task.isCancelled { return }
            }
        }
    }

    private func want(_ reaction: String, on prompt: Prompt) {
        marks[prompt, default: Marks(wanted: reaction, shown: nil)].wanted = reaction
        if !order.contains(prompt) { order.append(prompt) }
        wake.yield()
    }

    private func react(_ name: String, _ prompt: Prompt, add: Bool) async {
        do { try await poster.react(name, on: prompt.ts, in: prompt.channel, add: add) } catch {
            logger.debug("reaction \(name) on \(prompt.channel)/\(prompt.ts): \(error)")
        }
    }
}
