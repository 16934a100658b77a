import Foundation
import Logging
import MessengerKit
import PiRelayHTTP
import PiRelaySDK
import Testing

@testable import PiRelaySDK
@testable import TelegramPlugin

/// A group upgraded to a supergroup while a write to it waited for the chat's turn: Telegram would
/// refuse the old id again (the fake Telegram counts that as `migrated_chat_reused`), so the
/// write is refused unsent with Telegram's answer, and the poster sends it to the new id.
@Suite struct MovedGroupTests {
    @Test func aWriteToAGroupKnownMovedIsRefusedUnsentWithItsNewID() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("moved-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        let migrations = Migrations(store: store)
        // Nothing listens on port 9: a request that went out would fail to connect (status 0).
        let api = BotAPI(
            base: "http://127.0.0.1:9", token: TelegramToken(value: "1:secret"), proxy: .direct, loop: TransferLoop(),
            logger: Logger(label: "test"), store: store, migrations: migrations)
        await migrations.moved("-4001", to: "-1004001")
        await #expect {
            try await api.call("sendMessage", ["chat_id": "-4001", "text": "hi"], chat: "-4001")
        } throws: { error in
            guard let refused = error as? BotAPIError else { return false }
            return refused.status == 400 && refused.migrateTo == "-1004001"
        }
        #expect(api.tally.counts.json["requests"]?.intValue == 0, "nothing was sent: \(api.tally.counts.json)")
    }

    /// A move the group's service message announced is bound at pi-relayd before the next
    /// delivery posts in the new chat: someone who sees that post and writes at once must reach
    /// the session. Here Telegram cannot be reached at all, so a bind that waited for the post
    /// would never be asked for.
    @Test(.timeLimit(.minutes(1)))
    func aMoveAnnouncedByTheServiceMessageIsBoundBeforeTheDeliveryPosts() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("moved-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        let logger = Logger(label: "test")
        let migrations = Migrations(store: store)
        let api = BotAPI(
            base: "http://127.0.0.1:9", token: TelegramToken(value: "1:secret"), proxy: .direct, loop: TransferLoop(), logger: logger,
            store: store, migrations: migrations)
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[1]) }
        let connection = PluginConnection(writer: FDWriter(fd: fds[1]))
        let blocked = BlockedChats(logger: logger)
        let poster = Poster(api: api, blocked: blocked, migrations: migrations)
        let deliveries = Deliveries(
            poster: poster, live: LiveMessages(writer: poster, store: store, logger: logger, same: TelegramText.sameMessage),
            typing: Typing(api: api, migrations: migrations, blocked: blocked, logger: logger),
            keyboard: Keyboard(tokens: ButtonTokens(store: store)), questions: QuestionMessages(store: store), blocked: blocked,
            parts: DeliveryParts(store: store), migrations: migrations, connection: connection, logger: logger)
        await migrations.moved("-4001", to: "-1004001", by: "42")

        let posting = Task {
            try await deliveries.post(
                delivery: "d1", ChatPostParams(target: Target(channel: "-4001"), kind: .notice, sessionID: "s1", text: "after the upgrade"))
        }
        defer { posting.cancel() }
        // pi-relayd's side: every request answered, its method and chat kept in order.
        var asked: [String] = []
        for await event in FDLineReader.lines(fd: fds[0], closingAtEnd: true) {
            guard case .line(let line) = event, case .request(let id, let method, let params, _) = try WireMessage.decode(line) else {
                continue
            }
            asked.append(method + " " + (params["chat"]?["channel"]?.stringValue ?? ""))
            await connection.resolve(id, .success([:]))
            if asked.count == 2 { break }
        }
        #expect(asked == ["chat.bind -1004001", "chat.command -4001"])
    }

    /// A message of a group whose move this process learnt is in the old chat unless it was
    /// posted in the new one since; a move learnt before a restart says nothing of its messages
    /// (the edit is tried, and a message already in the new chat is edited there, not re-posted).
    @Test func onlyAMoveLearntHereMarksItsMessagesAsLeftBehind() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("moved-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        let before = Migrations(store: store)
        await before.moved("-4001", to: "-1004001")
        #expect(await before.isLeftBehind(7, askedFor: "-4001"))
        await before.posted(8, in: "-1004001", askedFor: "-4001")
        #expect(await !before.isLeftBehind(8, askedFor: "-4001"))

        let restarted = Migrations(store: store)
        #expect(await restarted.current("-4001") == "-1004001", "the move is saved")
        #expect(await !restarted.isLeftBehind(8, askedFor: "-4001"), "not re-posted after a restart")
    }
}
