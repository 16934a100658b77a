import FoundationEssentials
import PiRelaySDK
import SupervisorIO

/// Live views of running answers: throttled per run, droppable, replaced by the final answer.
extension ChatDelivery {
    package func session(_ session: PiSession, changed run: RunRecord) async -> Bool {
        // A run with nothing to show yet (it has just started) sends no view: chat.typing already
        // says the agent is working, and an empty view would start the throttle clock and hold
        // the first real text back by up to `liveInterval`.
        guard run.revision > 0 else { return false }
        if live[run.runID] == nil {
            // Asked once per run, not for every line: a hop to the bindings per pi line cost the
            // daemon about a third more CPU in the sessions bench. A chat that unbinds mid-run
            // leaves a feed whose views go nowhere.
            guard await bindings.isWatched(run.sessionID) else { return false }
            if live[run.runID] == nil { live[run.runID] = LiveFeed(session: session) }
        }
        if live[run.runID]?.inFlight == true {
            live[run.runID]?.changedInFlight = true
        } else {
            scheduleLive(run.runID)
        }
        return true
    }

    /// A messenger came (back) up: the views of running answers it shows go at their next change,
    /// not after the rest of their interval, so a plugin restarted mid-answer shows progress at
    /// once (the interval is the plugin's pace, and a new instance has written nothing yet).
    package func messengerReady(_ messenger: String) async {
        await showNextChangeAtOnce { $0.messenger == messenger }
    }

    /// A chat takes live views again (its progress mode changed, or it was resumed): the runs it
    /// shows send their view at their next change. A round that found no chat wanting a view
    /// started the interval all the same, so a web page reopened mid-answer waited up to 800 ms.
    package func viewsWanted(by chat: String) async {
        await showNextChangeAtOnce { $0.key == chat }
    }

    private func showNextChangeAtOnce(for chat: (Binding) -> Bool) async {
        for (runID, feed) in live {
            let chats = await bindings.chats(of: feed.session.identity.id)
            guard chats.contains(where: chat) else { continue }
            live[runID]?.lastSent = nil
            live[runID]?.wantedAgain += 1
        }
    }

    /// A run's first view goes out at once; later ones wait for the feed's interval since the last,
    /// and are sent by one ticker for all runs. A timer per view (50 a second with 20 sessions
    /// streaming) woke two threads each time (issue 12 k).
    private func scheduleLive(_ runID: String) {
        guard var feed = live[runID], !feed.scheduled, !feed.inFlight else { return }
        feed.scheduled = true
        live[runID] = feed
        if let last = feed.lastSent, .now - last < feed.interval {
            startLiveTicker()
            return
        }
        // Unstructured on purpose: the view is rendered while the session goes on streaming.
        // On the pipe thread, like the sessions' events: the formatter's reply is read there,
        // and a view that hopped to the cooperative pool woke a thread for each of its steps.
        Task(executorPreference: PipePoller.shared) { await self.flushLive(runID) }
    }

    private func startLiveTicker() {
        guard liveTicker == nil else { return }
        // Unstructured on purpose: it lives while views wait, and ends itself when none does.
        // It sleeps on the pipe thread's own clock, where the views are then rendered.
        liveTicker = Task(executorPreference: PipePoller.shared) {
            while true {
                await PipePoller.shared.sleep(until: .now + Self.liveTick)
                guard await self.flushDueViews() else { return }
            }
        }
    }

    /// Sends the views whose interval has passed, one after the other (the formatter answers
    /// one at a time anyway). False, and the ticker ends, when no view is waiting.
    private func flushDueViews() async -> Bool {
        let now = ContinuousClock.now
        let due = live.filter { _, feed in
            feed.scheduled && !feed.inFlight && feed.lastSent.map { now - $0 >= feed.interval } ?? true
        }
        for runID in due.keys { await flushLive(runID) }
        if live.values.contains(where: \.scheduled) { return true }
        liveTicker = nil
        return false
    }

    private func flushLive(_ runID: String) async {
        guard var feed = live[runID] else { return }
        feed.scheduled = false
        feed.inFlight = true
        feed.changedInFlight = false
        live[runID] = feed
        let wantedAgain = feed.wantedAgain
        // The newest state, fetched now: the session told only the first change since the last
        // fetch. Nil when the run is over: its final replaces the live view.
        guard let run = await feed.session.liveRun(runID), var current = live[runID] else { return }
        guard run.revision != current.sentRevision else {
            current.inFlight = false
            live[runID] = current
            if current.changedInFlight { scheduleLive(runID) }
            return
        }
        current.rev += 1
        let rev = current.rev
        live[runID] = current
        var targets: [Binding] = []
        for binding in await bindings.chats(of: run.sessionID) where await wants(binding, .progress) { targets.append(binding) }
        // Rendered once for the chats that would get the same view.
        var views: [RenderKey: FormatLiveResult] = [:]
        let snapshot = run.view
        for binding in targets {
            let dialect = self.dialect(of: binding.messenger)
            // Measured as it is sent, escaped: an alias of `&`s is five times as long in Slack.
            let label = await label(binding).map { dialect.escape($0) }
            let detail: RunDetail = await preferences.progress(binding.key) == .verbose ? .verbose : .normal
            let key = RenderKey(
                dialect: dialect, detail: detail, limit: traits.messageLength(binding.messenger) - (label.map { $0.utf16.count + 1 } ?? 0))
            var shown: FormatLiveResult
            if let known = views[key] {
                shown = known
            } else {
                let view = await format(.formatLive, FormatRunParams(run: snapshot, limit: key.limit, dialect: key.dialect, detail: detail))
                // The run finished while this view was being rendered: the final answer replaces
                // it, so a late live view would only flicker.
                guard live[runID] != nil else { return }
                shown =
                    view
                    ?? FormatLiveResult(
                        chunks: [], tail: PlainSplit.escapedTail(Self.plainLive(run.text), limit: key.limit, escape: key.dialect.escape))
                views[key] = shown
            }
            if let label { shown = Self.labeled(shown, label) }
            await host.slot(binding.messenger)?.notify(
                .chatLive,
                ChatLiveParams(
                    target: binding.target, sessionID: run.sessionID, runID: runID, rev: rev, chunks: shown.chunks, tail: shown.tail))
            if rev == 1 { metrics.firstVisible(messenger: binding.messenger, .now - current.firstChangeAt) }
        }
        guard var after = live[runID] else { return }
        after.interval = targets.map { traits.liveInterval($0.messenger) }.min() ?? MessengerTraits.defaultLiveInterval
        after.inFlight = false
        // A chat that wants views again since this one was fetched gets the next change at once.
        after.lastSent = after.wantedAgain == wantedAgain ? .now : nil
        after.sentRevision = run.revision
        live[runID] = after
        if after.changedInFlight { scheduleLive(runID) }
    }

    /// A growing text shown without the formatter: up to its last whitespace, so a secret still
    /// streaming is never shown half (where its whole value would not match), then masked.
    package static func plainLive(_ text: String) -> String {
        guard let end = text.lastIndex(where: \.isWhitespace) else { return "" }
        return Redactor.redact(String(text[...end]))
    }
}
