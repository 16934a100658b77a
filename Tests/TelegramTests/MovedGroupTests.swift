import Foundation
import Logging
import PiRelayHTTP
import PiRelaySDK
import Testing

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
}
