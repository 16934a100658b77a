import Foundation
import PiRelaySDK
import Testing

extension Scenarios {
    @Suite("Chat", .serialized)
    struct ChatScenarios {
        /// A refused user gets "Not authorized." at every entry point — a DM, a mention in a
        /// channel, a slash command, a button — and pi-relayd never hears of them. The same
        /// button works for an allowed user.
        @Test(.timeLimit(.minutes(2)))
        func unauthorizedUserIsRefusedEverywhere() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                #expect(
                    await plugin.deliverAndWait(
                        "buttons", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)], "kind": "reply", "text": "Pick a session",
                            "actions": [[["id": "use:ab12", "label": "api", "style": "success"]]],
                        ]))
                let withButtons = try #require(try await s.botMessages(Scenario.general, containing: "Pick a session").first)

                let dm = try await s.say("let me in", user: Scenario.mallory, name: "mallory", dm: true)
                let dmChannel = try #require(dm["channel_id"]?.stringValue)
                try await s.say("hey bot", user: Scenario.mallory, name: "mallory")
                let slash = try await s.slash("sessions", user: Scenario.mallory)
                let click = try await s.click("use:ab12", message: try #require(withButtons["id"]?.stringValue), user: Scenario.mallory)

                #expect(try await s.eventually { try await s.botMessages(dmChannel, containing: "Not authorized.").first } != nil)
                #expect(try await s.eventually { try await s.botMessages(Scenario.general, containing: "Not authorized.").first } != nil)
                for id in [slash["id"], click["id"]].compactMap({ $0?.stringValue }) {
                    let i = try #require(
                        try await s.eventually { () -> JSONValue? in
                            let v = try await s.interaction(id)
                            return v["acked"] == true ? v : .none
                        })
                    #expect(i["ack_type"] == 4)
                    #expect(i["callback"]?["data"]?["content"] == "Not authorized.")
                    #expect((i["callback"]?["data"]?["flags"]?.intValue ?? 0) & 64 == 64, "ephemeral")
                }
                try await Task.sleep(for: .milliseconds(500))
                #expect(await plugin.allRequests().isEmpty, "nothing from mallory reaches pi-relayd")

                let allowed = try await s.click("use:ab12", message: try #require(withButtons["id"]?.stringValue))
                let action = await plugin.waitForRequests("chat.command")
                #expect(action.first?["name"] == "action")
                #expect(action.first?["args"] == ["id": "use:ab12"])
                #expect(action.first?["chat"]?["user"] == .string(Scenario.alice))
                // The allowed user's click is acknowledged too (eventually returns nil when it never is).
                #expect(try await s.eventually { try await s.interaction(allowed["id"]!.stringValue!)["acked"] == true ? true : nil } == true)
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
                s.expectTokenNeverLogged()
            }
        }

        /// An empty allowlist: a warning at start that says how to let people in, and everyone
        /// refused.
        @Test(.timeLimit(.minutes(2)))
        func anEmptyAllowlistRefusesEveryone() async throws {
            try await Scenario.run { s in
                var config = s.config
                config["allowedUsers"] = []
                let cursor = try await s.fake.get("/cursor")["cursor"]?.intValue ?? 0
                let plugin = try await s.startPlugin(config: config)
                _ = try await s.fake.wait("for=ready&since=\(cursor)")
                #expect(plugin.stderr().contains("the allowlist is empty"))
                let dm = try await s.say("hello?", dm: true)
                let channel = try #require(dm["channel_id"]?.stringValue)
                #expect(try await s.eventually { try await s.botMessages(channel, containing: "Not authorized.").first } != nil)
                #expect(await plugin.allRequests().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }

        /// A slow supervisor: the command is deferred (type 5) well within 3 s and the original
        /// response edited with the reply. A fast one: answered directly (type 4). Every
        /// interaction is acknowledged exactly once.
        @Test(.timeLimit(.minutes(2)))
        func slowCommandsAreDeferredAndNothingIsAckedTwice() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady { method, params in
                    if method == "chat.command", params["name"] == "status" {
                        try? await Task.sleep(for: .seconds(4))
                        return .result(["text": "api: idle, claude-sonnet", "ephemeral": true])
                    }
                    if method == "chat.command", params["name"] == "sessions" {
                        return .result([
                            "text": "2 sessions", "ephemeral": true,
                            "actions": [
                                [
                                    ["id": "use:a1", "label": "api", "style": "primary"],
                                    ["id": "use:b2", "label": "web", "style": "secondary"],
                                ]
                            ],
                        ])
                    }
                    return .result(["text": ""])
                }
                let slow = try await s.slash("status")
                let fast = try await s.slash("sessions")
                let slowDone = try #require(
                    try await s.eventually(.seconds(15)) { () -> JSONValue? in
                        let v = try await s.interaction(slow["id"]!.stringValue!)
                        return v["acked"] == true && v["loading"] == false ? v : .none
                    })
                #expect(slowDone["ack_type"] == 5)
                #expect((slowDone["ack_latency_s"]?.doubleValue ?? 99) < 3.0, "within Discord's 3 s")
                #expect(slowDone["callback"]?["data"]?["flags"] == 64)
                let original = try await s.fake.get("/messages/\(slowDone["original_message_id"]!.stringValue!)")
                #expect(original["content"] == "api: idle, claude-sonnet")

                let fastDone = try await s.interaction(fast["id"]!.stringValue!)
                #expect(fastDone["ack_type"] == 4)
                #expect(fastDone["callback"]?["data"]?["content"] == "2 sessions")
                #expect(fastDone["callback"]?["data"]?["components"]?[0]?["components"]?.arrayValue?.count == 2)

                for i in [slowDone, fastDone] {
                    let callbacks = i["calls"]?.arrayValue?.filter { $0["route"]?.stringValue?.hasSuffix("/callback") == true } ?? []
                    #expect(callbacks.count == 1)
                }
                let doubles =
                    try await s.fake.get("/violations")["violations"]?.arrayValue?.filter {
                        $0["kind"] == "interaction_double_ack" || $0["kind"] == "interaction_late_ack"
                    } ?? []
                #expect(doubles.isEmpty)
                // Each once; the two interactions are handled side by side, so in either order
                // (under the thread sanitizer, CI saw "sessions" first).
                #expect(await plugin.requests("chat.command").compactMap { $0["name"]?.stringValue }.sorted() == ["sessions", "status"])
                #expect(await plugin.shutdown() == 0)
                s.expectTokenNeverLogged()
            }
        }

        /// A reply longer than a message (`/recent 50`): the first part answers the command, the
        /// rest follow as follow-up messages (Discord spec: interaction followups), its buttons
        /// under the last. Cut to one message with "…", the newest lines, the ones asked for,
        /// were lost.
        @Test(.timeLimit(.minutes(2)))
        func aLongCommandReplyFollowsUpInsteadOfBeingCut() async throws {
            try await Scenario.run { s in
                let lines = (1...40).map { "line \($0) " + String(repeating: "x", count: 90) }
                _ = try await s.startReady { method, params in
                    guard method == "chat.command", params["name"] == "recent" else { return .result(["text": ""]) }
                    return .result([
                        "text": .string(lines.joined(separator: "\n")), "ephemeral": true,
                        "actions": [[["id": "more", "label": "More", "style": "secondary"]]],
                    ])
                }
                let slash = try await s.slash("recent")
                let done = try #require(
                    try await s.eventually { () -> JSONValue? in
                        let v = try await s.interaction(slash["id"]!.stringValue!)
                        return (v["followups"]?.arrayValue?.count ?? 0) >= 1 ? v : .none
                    })
                #expect(done["ack_type"] == 4)
                let first = done["callback"]?["data"]?["content"]?.stringValue ?? ""
                var texts = [first]
                var last = JSONValue.null
                for id in done["followups"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                    last = try await s.fake.get("/messages/\(id)")
                    texts.append(last["content"]?.stringValue ?? "")
                    #expect(last["flags"]?.intValue.map { $0 & 64 } == 64, "ephemeral, as the reply: \(last)")
                }
                #expect(texts.allSatisfy { $0.utf16.count <= 2000 })
                #expect(texts.joined() == lines.joined(separator: "\n"), "every line, once, in order")
                #expect(done["callback"]?["data"]?["components"]?.arrayValue?.isEmpty ?? true, "no buttons on the first part")
                #expect(last["components"]?.arrayValue?.isEmpty == false, "the buttons under the last part")
            }
        }

        /// A message in a configured channel with a mention, one without (ignored), a DM and a
        /// plain-text "/stop" in the DM: the chat objects pi-relayd gets, and the reply posted
        /// as an answer to the user's message.
        @Test(.timeLimit(.minutes(2)))
        func messagesBecomeChatMessages() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady { method, params in
                    guard method == "chat.message" else { return .result([:]) }
                    let text = params["text"]?.stringValue ?? ""
                    return .result([
                        "status": text.hasPrefix("/") ? "command" : "queued",
                        "reply": ["text": text.hasPrefix("/") ? "Stopped." : "Queued after the current run."],
                    ])
                }
                let withAttachment = try await s.fake.post(
                    "/messages",
                    [
                        "channel_id": .string(Scenario.general), "user_id": .string(Scenario.alice), "username": "alice",
                        "content": "fix the build", "mention_bot": true,
                        "attachments": [["filename": "log.txt", "content_type": "text/plain", "text": "error: boom"]],
                    ])
                try await s.say("no mention here", mention: false)
                try await s.say("/stop", dm: true)
                let got = await plugin.waitForRequests("chat.message", count: 2)
                try await Task.sleep(for: .milliseconds(500))
                #expect(await plugin.requests("chat.message").count == 2)
                let channel = try #require(got.first)
                #expect(channel["text"] == "fix the build")
                #expect(channel["messageId"] == withAttachment["id"])
                #expect(channel["chat"]?["mentioned"] == true)
                #expect(channel["chat"]?["guild"] == .string(Scenario.guild))
                #expect(channel["chat"]?["dm"] == false)
                #expect(channel["attachments"]?[0]?["filename"] == "log.txt")
                #expect(channel["attachments"]?[0]?["size"] == 11)
                #expect(channel["attachments"]?[0]?["url"]?.stringValue?.contains("/attachments/") == true)
                let dm = try #require(got.last)
                #expect(dm["text"] == "/stop")
                #expect(dm["chat"]?["dm"] == true)
                #expect(dm["chat"]?["guild"] == nil)

                let reply = try #require(try await s.eventually { try await s.botMessages(Scenario.general, containing: "Queued").first })
                #expect(reply["reference"]?["message_id"] == withAttachment["id"])
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }

        /// A prompt queued behind a run gets a ⏳ instead of the "Queued" line; a reply that says
        /// more (what became of its files, a voice note's words) is posted too, where the ⏳ alone
        /// hid it.
        @Test(.timeLimit(.minutes(2)))
        func aQueuedPromptsNotesArePostedBesideItsReaction() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady { method, params in
                    guard method == "chat.message" else { return .result([:]) }
                    let notes = params["text"] == "with notes"
                    return .result([
                        "status": "queued", "reaction": "⏳",
                        "reply": ["text": .string("Queued as follow-up for api." + (notes ? "\nbig.zip was not included: over the limit" : ""))],
                    ])
                }
                try await s.say("plain", dm: true)
                try await s.say("with notes", dm: true)
                _ = await plugin.waitForRequests("chat.message", count: 2)
                let dm = try await s.dmChannel(Scenario.alice)
                let noted = try #require(try await s.eventually { try await s.botMessages(dm, containing: "was not included").first })
                #expect(noted["content"]?.stringValue?.contains("big.zip") == true, "\(noted)")
                try await Task.sleep(for: .milliseconds(500))
                #expect(try await s.botMessages(dm, containing: "Queued as follow-up").count == 1, "the plain one has its ⏳ alone")
                #expect(await plugin.shutdown() == 0)
            }
        }

        /// A select question: numbered options as buttons; a click becomes chat.answer with the
        /// option's text; chat.question.closed turns the message into the outcome without
        /// buttons. A confirm question's "No" becomes confirmed:false.
        @Test(.timeLimit(.minutes(2)))
        func questionsAreAnsweredWithButtonsAndClosed() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady { method, _ in
                    method == "chat.answer" ? .result(["text": ""]) : .result([:])
                }
                let expires = (Date().timeIntervalSince1970 + 30) * 1000
                #expect(
                    await plugin.deliverAndWait(
                        "q-post", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)], "kind": "question", "sessionId": "s1",
                            "question": [
                                "id": "q1", "sessionId": "s1", "method": "select", "title": "Which color?",
                                "options": ["red", "green", "blue"], "expiresAt": .number(expires),
                            ],
                        ]))
                let message = try #require(try await s.botMessages(Scenario.general, containing: "Which color?").first)
                // The countdown is as of the post, which a loaded machine may make late; the
                // stamp is the expiry itself.
                let content = message["content"]?.stringValue ?? ""
                let left = content.split(separator: "expires in ").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
                #expect(left.map { (1...30).contains($0) } == true && content.contains(" s (<t:\(Int(expires / 1000)):T>)"), "\(content)")
                let buttons = message["components"]?.arrayValue?.flatMap { $0["components"]?.arrayValue ?? [] } ?? []
                let green = try #require(buttons.first { $0["label"] == "2. green" }?["custom_id"]?.stringValue)
                #expect(buttons.contains { $0["label"] == "Cancel" })
                let click = try await s.click(green, message: message["id"]!.stringValue!)
                let answer = try #require(await plugin.waitForRequests("chat.answer").first)
                #expect(answer["sessionId"] == "s1")
                #expect(answer["questionId"] == "q1")
                #expect(answer["value"] == "green")
                let acked = try await s.eventually { try await s.interaction(click["id"]!.stringValue!)["ack_type"]?.intValue }
                #expect(acked == 6)

                #expect(
                    await plugin.deliverAndWait(
                        "q-closed", "chat.question.closed",
                        [
                            "target": ["channel": .string(Scenario.general)], "sessionId": "s1", "questionId": "q1",
                            "text": "✅ alice chose green",
                        ]))
                let closed = try await s.fake.get("/messages/\(message["id"]!.stringValue!)")
                #expect(closed["content"]?.stringValue?.contains("✅ alice chose green") == true)
                #expect(closed["components"] == [])

                #expect(
                    await plugin.deliverAndWait(
                        "c-post", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)], "kind": "question", "sessionId": "s1",
                            "mentionUser": .string(Scenario.alice),
                            "question": ["id": "q2", "sessionId": "s1", "method": "confirm", "title": "Run rm -rf build?"],
                        ]))
                let confirm = try #require(try await s.botMessages(Scenario.general, containing: "rm -rf build").first)
                #expect(confirm["mentions"]?.arrayValue?.contains(.string(Scenario.alice)) == true, "the question pings the user it waits for")
                let no = try #require(confirm["components"]?[0]?["components"]?.arrayValue?.first { $0["label"] == "No" }?["custom_id"]?.stringValue)
                _ = try await s.click(no, message: confirm["id"]!.stringValue!)
                let answers = await plugin.waitForRequests("chat.answer", count: 2)
                #expect(answers.last?["confirmed"] == false)
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }

        /// An echo shows as "▶ USER: …"; a reply with more buttons than Discord allows becomes
        /// select menus, and picking an entry sends its action id.
        @Test(.timeLimit(.minutes(2)))
        func echoesAndMenus() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                #expect(
                    await plugin.deliverAndWait(
                        "echo-1", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)],
                            "kind": "echo", "text": "fix the flaky test",
                        ]))
                #expect(try await s.botMessages(Scenario.general, containing: "▶ USER: fix the flaky test").count == 1)
                let actions: [JSONValue] = (1...30).map { ["id": .string("use:s\($0)"), "label": .string("session \($0)"), "style": "primary"] }
                #expect(
                    await plugin.deliverAndWait(
                        "many", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)],
                            "kind": "reply", "text": "Pick one of 30",
                            "actions": .array(stride(from: 0, to: 30, by: 5).map { .array(Array(actions[$0..<$0 + 5])) }),
                        ]))
                let message = try #require(try await s.botMessages(Scenario.general, containing: "Pick one of 30").first)
                let menus = message["components"]?.arrayValue?.compactMap { $0["components"]?[0] } ?? []
                #expect(menus.count == 2)
                #expect(menus.allSatisfy { $0["type"] == 3 })
                let menuID = try #require(menus[1]["custom_id"]?.stringValue)
                _ = try await s.click(menuID, message: message["id"]!.stringValue!, values: ["use:s27"])
                let action = try #require(await plugin.waitForRequests("chat.command").first)
                #expect(action["name"] == "action")
                #expect(action["args"] == ["id": "use:s27"])
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }

        /// /new answered with openThread: a public thread opens in the channel, chat.bind names
        /// it, the bind reply is posted there, and the thread is then heard without a mention.
        @Test(.timeLimit(.minutes(2)))
        func newSessionOpensAThreadAndBindsIt() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady { method, params in
                    switch method {
                    case "chat.command": .result(["text": "Started api", "openThread": ["name": "api", "sessionId": "s9"]])
                    case "chat.bind": .result(["text": "This thread is bound to api."])
                    default: .result(["status": "prompted"])
                    }
                }
                _ = try await s.slash("new", options: ["cwd": "/src/api", "name": "api"])
                let command = try #require(await plugin.waitForRequests("chat.command").first)
                #expect(command["name"] == "new")
                #expect(command["args"] == ["cwd": "/src/api", "name": "api"])
                let bind = try #require(await plugin.waitForRequests("chat.bind").first)
                #expect(bind["sessionId"] == "s9")
                #expect(bind["chat"]?["channel"] == .string(Scenario.general))
                let thread = try #require(bind["chat"]?["thread"]?.stringValue)
                #expect(try await s.eventually { try await s.botMessages(thread, containing: "bound to api").first } != nil)

                try await s.say("work in the thread", channel: thread, mention: false)
                let message = try #require(await plugin.waitForRequests("chat.message").first)
                #expect(message["chat"]?["thread"] == .string(thread))
                #expect(message["chat"]?["channel"] == .string(Scenario.general))
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }
    }
}
