import FoundationEssentials
import PiRelaySDK

/// The service steps of `plugin check` for a messenger with a driver (docs/PROTOCOL.md §10): what
/// a user of the service sees while pi-relayd talks to the plugin. The driver writes as the user
/// and reports the bot's posts; the check sends what the daemon sends for a run, a question and
/// a final.
package struct MessengerSteps: Sendable {
    package static let names = [
        "inbound prompt", "duplicate inbound", "stream with edits", "long final", "question by button", "question closed",
        "exactly once after SIGKILL",
    ]

    package let driver: CheckDriver
    package let chat: CheckChat
    package let hello: Hello
    /// Where the formatter that splits the long final is found, as the daemon finds it.
    package let home: Home

    private var sessionID: String { CheckSetting.sessionID }

    /// Every step but the one across the SIGKILL, in order, on the first instance.
    package func steps(_ plugin: CheckedPlugin) async -> [CheckStep] {
        var steps = await inbound(plugin)
        steps.append(await stream(plugin))
        steps.append(await longFinal(plugin))
        steps += await question(plugin)
        return steps
    }

    // MARK: Inbound

    private func inbound(_ plugin: CheckedPlugin) async -> [CheckStep] {
        let text = "plugin check: please run the tests"
        let mark = await plugin.mark
        if let problem = await act(["op": "message", "text": .string(text)], "inbound prompt") {
            let why = "not tried: the driver wrote no message"
            return [problem, problem.outcome == .skipped ? .skipped("duplicate inbound", why) : .failed("duplicate inbound", why)]
        }
        let handed = await plugin.message(after: mark, within: .seconds(20)) { Self.isMessage($0, containing: text) }
        guard case .request(_, _, let params, _)? = handed else {
            let seen = await plugin.requests(after: mark, .chatMessage).map { "“\($0["text"]?.stringValue ?? "")”" }
            return [
                .failed(
                    "inbound prompt",
                    "expected a chat.message with “\(text)” within 20 s, got \(seen.isEmpty ? "none" : seen.joined(separator: ", "))"),
                .failed("duplicate inbound", "not tried: nothing was handed over"),
            ]
        }
        let user = params["chat"]?["user"]?.stringValue
        let messageID = params["messageId"]?.stringValue
        let expected = await plugin.pairedUser ?? chat.user
        var steps = [
            CheckStep.judged(
                "inbound prompt", user == expected,
                "expected it from user \(expected.isEmpty ? "the paired user (none paired)" : expected), got \(user ?? "no user")",
                passed: "chat.message \(messageID ?? "without a messageId") from \(expected)")
        ]

        let again = await plugin.mark
        if let problem = await act(["op": "duplicate"], "duplicate inbound") {
            steps.append(problem)
            return steps
        }
        let repeats = await plugin.messages(after: again, waiting: .seconds(5)) { Self.isMessage($0, containing: text) }
        let fresh = repeats.filter { message in
            guard case .request(_, _, let params, _) = message else { return false }
            return messageID == nil || params["messageId"]?.stringValue != messageID
        }
        steps.append(
            .judged(
                "duplicate inbound", fresh.isEmpty, "handed over again as a new message (\(fresh.count)×): the daemon would prompt twice",
                passed: repeats.isEmpty ? "not handed over again" : "handed over again with the same messageId, which the daemon drops"))
        return steps
    }

    private static func isMessage(_ message: WireMessage, containing text: String) -> Bool {
        guard case .request(_, MethodName.chatMessage.rawValue, let params, _) = message else { return false }
        return params["text"]?.stringValue?.contains(text) ?? false
    }

    // MARK: A run

    private func stream(_ plugin: CheckedPlugin) async -> CheckStep {
        let name = "stream with edits"
        let runID = "\(sessionID)-1"
        let interval = min(max(hello.limits["liveIntervalMs"] ?? 800, 100), 10000)
        let views = ["Checking the stream: step one", "Checking the stream: step two", "Checking the stream: step three"]
        for (index, tail) in views.enumerated() {
            let live = ChatLiveParams(target: chat.target, sessionID: sessionID, runID: runID, rev: index + 1, chunks: [], tail: tail)
            plugin.send(.notify(method: MethodName.chatLive.rawValue, params: live.json))
            try? await Task.sleep(for: .milliseconds(max(interval, 1000)))
        }
        let live = await posts { $0.contains { $0.text.contains("step three") } }
        if let problem = live.problem { return problem.step(name) }
        let finalText = "Stream finished: all checks pass."
        let final = ChatPostParams(target: chat.target, kind: .final, sessionID: sessionID, runID: runID, chunks: [finalText])
        guard await plugin.deliver(CheckDelivery(id: "check-final-1", method: MethodName.chatPost.rawValue, params: final.json), within: .seconds(30))
        else { return .failed(name, "no ack for the run's final within 30 s") }
        let after = await posts { posts in
            posts.filter { $0.text.contains(finalText) }.count == 1 && (!chat.edits || !posts.contains { $0.text.contains("Checking the stream") })
        }
        if let problem = after.problem { return problem.step(name) }
        let finals = after.posts.filter { $0.text.contains(finalText) }
        guard chat.edits else {
            return .judged(
                name, finals.count == 1, "expected the final once, got it \(finals.count)× in \(after.summary)", passed: "the final posted once")
        }
        let stale = after.posts.filter { $0.text.contains("Checking the stream") }
        guard live.met else { return .failed(name, "expected the live view “\(views[2])” in the chat within 15 s, got \(live.summary)") }
        return .judged(
            name, finals.count == 1 && stale.isEmpty && finals[0].edits >= 1,
            "expected one post with “\(finalText)”, edited from the live view, and no live text left; got \(after.summary)",
            passed: "one message, edited \(finals.first?.edits ?? 0)× from the live view into the final")
    }

    private func longFinal(_ plugin: CheckedPlugin) async -> CheckStep {
        let name = "long final"
        let limit = hello.limits["maxMessageLength"] ?? 2000
        let parts = max(8, limit * 5 / 2 / 90 + 1)
        // One width for every number, so that no marker is the start of another (a messenger
        // whose limit is large needs more than 999 parts).
        let width = max(3, String(parts).count)
        let markers = (1...parts).map { "Part " + String(repeating: "0", count: width - String($0).count) + String($0) }
        let text = markers.map { "\($0) of the long answer: the tests in this part pass and nothing else changed." }
            .joined(separator: "\n\n")
        let runID = "\(sessionID)-2"
        let chunks: [String]
        do {
            chunks = try await split(text, runID: runID, limit: limit)
        } catch {
            return .failed(name, "the formatter did not split it: \(error)")
        }
        guard chunks.count > 1 else { return .failed(name, "the formatter made one message of \(text.count) characters (limit \(limit))") }
        let final = ChatPostParams(target: chat.target, kind: .final, sessionID: sessionID, runID: runID, chunks: chunks)
        guard await plugin.deliver(CheckDelivery(id: "check-final-2", method: MethodName.chatPost.rawValue, params: final.json), within: .seconds(60))
        else { return .failed(name, "no ack for the \(chunks.count)-message final within 60 s") }
        let seen = await posts(within: .seconds(30)) { posts in markers.allSatisfy { marker in posts.contains { $0.text.contains(marker) } } }
        if let problem = seen.problem { return problem.step(name) }
        var missing: [String] = []
        var repeated: [String] = []
        var outOfOrder: [String] = []
        var last = -1
        for marker in markers {
            let holding = seen.posts.indices.filter { seen.posts[$0].text.contains(marker) }
            if holding.isEmpty { missing.append(marker) }
            if holding.count > 1 { repeated.append(marker) }
            if let at = holding.first {
                if at < last { outOfOrder.append(marker) }
                last = at
            }
        }
        let problems =
            [
                missing.isEmpty ? nil : "missing \(missing.prefix(3).joined(separator: ", "))",
                repeated.isEmpty ? nil : "repeated \(repeated.prefix(3).joined(separator: ", "))",
                outOfOrder.isEmpty ? nil : "out of order from \(outOfOrder[0])",
            ]
            .compactMap { $0 }
        return .judged(
            name, problems.isEmpty, "expected parts 001 to \(markers.last ?? "") once each, in order: \(problems.joined(separator: "; "))",
            passed: "\(chunks.count) messages of at most \(limit) characters, each part once, in order")
    }

    /// The final as the daemon's formatter renders it for this messenger.
    private func split(_ text: String, runID: String, limit: Int) async throws -> [String] {
        let formatter = try await LocalFormatter.start(home)
        do {
            let run = RunView(sessionID: sessionID, sessionName: "check", runID: runID, done: true, items: [.text(text)], stopReason: "stop")
            let result = try await formatter.client.request(
                .formatFinal, FormatRunParams(run: run, limit: limit, maxChunks: 50, dialect: hello.dialect ?? .markdown))
            await formatter.stop()
            return result.messages
        } catch {
            await formatter.stop()
            throw error
        }
    }

    // MARK: Questions

    private func question(_ plugin: CheckedPlugin) async -> [CheckStep] {
        let title = "Which colour should the check use?"
        let asked = QuestionPost(id: "q-check-1", sessionID: sessionID, method: "select", title: title, options: ["red", "green", "blue"])
        let post = ChatPostParams(target: chat.target, kind: .question, sessionID: sessionID, text: "❓ \(title)", question: asked)
        guard await plugin.deliver(CheckDelivery(id: "check-question", method: MethodName.chatPost.rawValue, params: post.json), within: .seconds(30))
        else { return ["question by button", "question closed"].map { .failed($0, "no ack for the question within 30 s") } }
        let shown = await posts { $0.contains { $0.text.contains(title) } }
        if let problem = shown.problem { return ["question by button", "question closed"].map { problem.step($0) } }
        guard let card = shown.posts.last(where: { $0.text.contains(title) }) else {
            return ["question by button", "question closed"].map {
                .failed($0, "expected the question in the chat within 15 s, got \(shown.summary)")
            }
        }

        var steps: [CheckStep] = []
        let mark = await plugin.mark
        // The option's button as the service labels it ("green", "2. green").
        let label = card.buttons.first { $0 == "green" } ?? card.buttons.first { $0.contains("green") } ?? "green"
        if let problem = await act(["op": "press", "post": .string(card.id), "label": .string(label)], "question by button") {
            steps.append(problem)
        } else {
            let answered = await plugin.message(after: mark, within: .seconds(15)) { message in
                guard case .request(_, MethodName.chatAnswer.rawValue, let params, _) = message else { return false }
                return params["questionId"]?.stringValue == asked.id
            }
            if case .request(_, _, let params, _)? = answered {
                let value = params["value"]?.stringValue
                steps.append(
                    .judged(
                        "question by button", value == "green" || value == "2",
                        "expected chat.answer with value “green” (or 2), got \(params.serialized())", passed: "chat.answer “\(value ?? "")”"))
            } else {
                steps.append(.failed("question by button", "expected chat.answer for \(asked.id) within 15 s of pressing “\(label)”, got none"))
            }
        }

        let closedText = "\(chat.userName) answered: green"
        let closed = QuestionClosedParams(target: chat.target, sessionID: sessionID, questionID: asked.id, text: closedText)
        guard
            await plugin.deliver(
                CheckDelivery(id: "check-closed", method: MethodName.chatQuestionClosed.rawValue, params: closed.json), within: .seconds(30))
        else { return steps + [.failed("question closed", "no ack for chat.question.closed within 30 s")] }
        let after = await posts { posts in
            (posts.first { $0.id == card.id }?.buttons.isEmpty ?? true) && posts.contains { $0.text.contains(closedText) }
        }
        if let problem = after.problem { return steps + [problem.step("question closed")] }
        steps.append(
            .judged(
                "question closed", after.met,
                "expected the question's post without buttons and “\(closedText)” shown, got \(after.summary)",
                passed: card.buttons.isEmpty ? "“\(closedText)” shown" : "buttons gone, “\(closedText)” shown"))
        return steps
    }

    // MARK: Exactly once across a crash

    /// A final the first instance posts; the kill comes before the check takes its ack.
    package func exactlyOnceBeforeKill(_ plugin: CheckedPlugin) async -> CheckDelivery {
        let text = "Exactly once: this answer shows one time."
        let final = ChatPostParams(target: chat.target, kind: .final, sessionID: sessionID, runID: "\(sessionID)-3", chunks: [text])
        let delivery = CheckDelivery(id: "check-once", method: MethodName.chatPost.rawValue, params: final.json)
        plugin.send(.deliver(id: delivery.id, method: delivery.method, params: delivery.params))
        _ = await posts { $0.contains { $0.text.contains(text) } }
        return delivery
    }

    /// The restarted instance gets the final again and posts nothing new.
    package func exactlyOnceAfterKill(_ plugin: CheckedPlugin, _ delivery: CheckDelivery) async -> CheckStep {
        let name = "exactly once after SIGKILL"
        let acked = await plugin.deliver(delivery, within: .seconds(30))
        try? await Task.sleep(for: .seconds(2))
        let seen = await posts(within: .zero) { _ in true }
        if let problem = seen.problem { return problem.step(name) }
        let count = seen.posts.filter { $0.text.contains("Exactly once:") }.count
        if !acked { return .failed(name, "the replayed final was not acked within 30 s") }
        return .judged(name, count == 1, "expected the final once after the replay, got it \(count)×", passed: "posted once, replay acked")
    }

    // MARK: The driver

    /// Asks the driver to act; a step in place of success when it cannot.
    private func act(_ request: JSONValue, _ step: String) async -> CheckStep? {
        switch await driver.ask(request) {
        case .done: return nil
        case .unsupported(let why): return .skipped(step, why)
        case .failed(let why): return .failed(step, why)
        }
    }

    /// What `posts` reports: the bot's messages, or why the driver could not say.
    package struct Seen {
        package var posts: [CheckPost] = []
        /// Whether the condition held before the time was up.
        package var met = false
        package var problem: CheckDriver.Answer?

        package var summary: String {
            posts.isEmpty ? "no posts" : posts.suffix(4).map(\.summary).joined(separator: ", ")
        }
    }

    /// The bot's posts once `done` holds for them, or the last ones seen when `limit` has passed.
    private func posts(within limit: Duration = .seconds(15), until done: ([CheckPost]) -> Bool) async -> Seen {
        let end = ContinuousClock.now + limit
        while true {
            switch await driver.ask(["op": "posts"]) {
            case .done(let answer):
                let posts = (answer["posts"]?.arrayValue ?? []).compactMap(CheckPost.init(json:))
                if done(posts) { return Seen(posts: posts, met: true) }
                if ContinuousClock.now >= end { return Seen(posts: posts, met: false) }
            case let problem: return Seen(problem: problem)
            }
            try? await Task.sleep(for: .milliseconds(300))
        }
    }
}

extension CheckDriver.Answer {
    /// The step when the driver could not report: skipped when it cannot, failed when it broke.
    package func step(_ name: String) -> CheckStep {
        switch self {
        case .unsupported(let why): .skipped(name, why)
        case .failed(let why): .failed(name, why)
        case .done: .passed(name)
        }
    }
}
