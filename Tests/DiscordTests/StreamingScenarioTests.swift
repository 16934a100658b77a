import Foundation
import PiRelaySDK
import Testing

extension Scenarios {
    @Suite("Streaming and posting", .serialized)
    struct StreamingScenarios {
        static func live(_ channel: String, run: String, rev: Int, chunks: [String], tail: String) -> JSONValue {
            [
                "target": ["channel": .string(channel)], "sessionId": "s1", "runId": .string(run), "rev": JSONValue(rev),
                "chunks": .array(chunks.map { .string($0) }), "tail": .string(tail),
            ]
        }

        static func final(_ channel: String, run: String?, chunks: [String], files: [JSONValue] = []) -> JSONValue {
            var p: JSONValue = [
                "target": ["channel": .string(channel)], "kind": "final", "sessionId": "s1",
                "chunks": .array(chunks.map { .string($0) }),
            ]
            if let run { p["runId"] = .string(run) }
            if !files.isEmpty { p["files"] = .array(files) }
            return p
        }

        /// Live updates edit one message in place (with typing shown), a finished chunk stays,
        /// and the final turns the live messages into its chunks and posts the rest.
        @Test(.timeLimit(.minutes(2)))
        func liveRunBecomesTheFinal() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                await plugin.notify("chat.typing", ["target": ["channel": .string(Scenario.general)]])
                for rev in 1...10 {
                    await plugin.notify("chat.live", Self.live(Scenario.general, run: "r1", rev: rev, chunks: [], tail: "step \(rev)"))
                    try await Task.sleep(for: .milliseconds(100))
                }
                _ = try await s.eventually { try await s.botMessages(Scenario.general, containing: "step 10").first }
                await plugin.notify("chat.live", Self.live(Scenario.general, run: "r1", rev: 11, chunks: ["part one"], tail: "part two so far"))
                _ = try await s.eventually { try await s.botMessages(Scenario.general, containing: "part two so far").first }
                #expect(
                    await plugin.deliverAndWait(
                        "fin-r1", "chat.post",
                        Self.final(
                            Scenario.general, run: "r1",
                            chunks: ["part one", "part two", "part three"])))
                let messages = try await s.fake.messages(channel: Scenario.general)
                let contents = messages.compactMap { $0["content"]?.stringValue }
                #expect(contents.suffix(3) == ["part one", "part two", "part three"])
                #expect(messages.count == 3, "the two live messages became chunks 1 and 2: \(contents)")
                let first = try #require(messages.first)
                #expect((first["edit_count"]?.intValue ?? 0) >= 1)
                #expect((first["edit_count"]?.intValue ?? 99) <= 10, "updates were coalesced")
                #expect(s.fake.transcript().contains("bot is typing"))
                // A late live update for the finished run changes nothing.
                await plugin.notify("chat.live", Self.live(Scenario.general, run: "r1", rev: 12, chunks: [], tail: "late"))
                try await Task.sleep(for: .seconds(1))
                #expect(try await s.botMessages(Scenario.general, containing: "late").isEmpty)
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }

        /// A user deletes the message a run streams into: the next view goes on in a new message
        /// (Unknown Message, discord-api.md §7). Taken as shown, the refused edit let a final
        /// whose text the last view held be skipped, and the answer was lost.
        @Test(.timeLimit(.minutes(2)))
        func aDeletedLiveMessageGoesOnInANewOneAndTheFinalArrives() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                await plugin.notify("chat.live", Self.live(Scenario.general, run: "r9", rev: 1, chunks: [], tail: "first words"))
                let live = try await s.eventually { try await s.botMessages(Scenario.general, containing: "first words").first }
                let id = try #require(live?["id"]?.stringValue)
                _ = try await s.fake.post("/messages/\(id)/delete")
                await plugin.notify("chat.live", Self.live(Scenario.general, run: "r9", rev: 2, chunks: [], tail: "the whole answer"))
                _ = try await s.eventually { try await s.botMessages(Scenario.general, containing: "the whole answer").first }
                #expect(await plugin.deliverAndWait("fin-r9", "chat.post", Self.final(Scenario.general, run: "r9", chunks: ["the whole answer"])))
                let contents = try await s.fake.messages(channel: Scenario.general).compactMap { $0["content"]?.stringValue }
                #expect(contents == ["the whole answer"], "\(contents)")
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }

        /// Oversized chunks and long notices never become a message over 2000 characters; the
        /// long notice arrives whole, in order.
        @Test(.timeLimit(.minutes(2)))
        func messagesStayWithin2000Characters() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                let long = (1...300).map { "line \($0) of a long notice" }.joined(separator: "\n")
                #expect(
                    await plugin.deliverAndWait(
                        "long-notice", "chat.post",
                        [
                            "target": ["channel": .string(Scenario.general)],
                            "kind": "notice", "text": .string(long),
                        ]))
                #expect(
                    await plugin.deliverAndWait(
                        "big-final", "chat.post",
                        Self.final(
                            Scenario.ops, run: nil,
                            chunks: [String(repeating: "é", count: 2600), "tail"])))
                let notice = try await s.fake.messages(channel: Scenario.general).compactMap { $0["content"]?.stringValue }
                #expect(notice.count == 4, "7,6xx characters in pieces of at most 2000")
                #expect(notice.joined() == long)
                let all = notice + (try await s.fake.messages(channel: Scenario.ops).compactMap { $0["content"]?.stringValue })
                #expect(all.allSatisfy { $0.unicodeScalars.count <= 2000 })
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }

        /// A delivery replayed to a new instance (as after a crash before the ack, here with a
        /// fresh state directory so only Discord can tell) posts nothing twice: same nonce,
        /// enforce_nonce. The same instance acks a duplicate id without posting.
        @Test(.timeLimit(.minutes(2)))
        func replayedDeliveriesPostOnce() async throws {
            try await Scenario.run { s in
                let params: JSONValue = [
                    "target": ["channel": .string(Scenario.general)], "kind": "final",
                    "chunks": ["once only, part 1", "once only, part 2"],
                ]
                let first = try await s.startReady(name: "first")
                #expect(await first.deliverAndWait("d-42", "chat.post", params))
                #expect(await first.deliverAndWait("d-42", "chat.post", params))
                #expect(await first.kill9() == 137)
                let second = try await s.startPlugin(name: "second", stateDir: s.folder.path + "/fresh-state")
                #expect(await second.deliverAndWait("d-42", "chat.post", params))
                let posted = try await s.botMessages(Scenario.general, containing: "once only")
                #expect(posted.count == 2)
                let creates = try await s.fake.get("/requests?method=POST&path=/channels/\(Scenario.general)/messages")["requests"]?.arrayValue ?? []
                let nonces = creates.compactMap { $0["request_body"]?["nonce"]?.stringValue }
                #expect(nonces.count == 4 && Set(nonces).count == 2)
                #expect(creates.allSatisfy { $0["request_body"]?["enforce_nonce"] == true })
                #expect(await second.shutdown() == 0)
            }
        }

        /// A final with a file: uploaded as multipart with the last chunk, the bytes intact, the
        /// spool copy removed after Discord accepted it.
        @Test(.timeLimit(.minutes(2)))
        func finalFilesAreUploaded() async throws {
            try await Scenario.run { s in
                let plugin = try await s.startReady()
                let spool = s.folder.path + "/spool"
                try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
                let path = spool + "/report-1.md"
                let text = "# Report\n" + String(repeating: "all good\n", count: 500)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                #expect(
                    await plugin.deliverAndWait(
                        "with-file", "chat.post",
                        Self.final(
                            Scenario.general, run: nil, chunks: ["Done, see the report."],
                            files: [["path": .string(path), "filename": "report.md"]])))
                let message = try #require(try await s.botMessages(Scenario.general, containing: "see the report").first)
                let attachment = try #require(message["attachments"]?[0])
                #expect(attachment["filename"] == "report.md")
                #expect(attachment["bytes"] == JSONValue(text.utf8.count))
                #expect(!FileManager.default.fileExists(atPath: path))
                #expect(try await s.violations().isEmpty)
                #expect(await plugin.shutdown() == 0)
            }
        }
    }
}
