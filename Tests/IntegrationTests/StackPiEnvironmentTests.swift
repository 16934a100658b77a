import Foundation
import PiRelaySDK
import Testing

/// A pi child never gets a plugin's secret, not even one its section leaves to the default
/// variable (`TELEGRAM_BOT_TOKEN`, `TRANSCRIBE_API_KEY`): a session brought back when pi-relayd
/// starts waits for the plugins' first hellos before its pi starts, and the bundled plugins'
/// defaults are kept from it before any hello.
@Suite struct StackPiEnvironmentTests {
    @Test func aRestoredSessionsPiDoesNotGetTheBotToken() async throws {
        try await TelegramStack.with { stack in
            let names = stack.home.scratch + "/pi-env"
            try FileManager.default.createDirectory(atPath: names, withIntermediateDirectories: true)
            // The attachments plugin runs with no transcription set up: the key's default
            // variable, which .env may hold for later, is its alone too.
            let environment = ["FAKE_PI_ENV_NAMES": names, "TRANSCRIBE_API_KEY": "sk-transcribe-StackPiEnvironment"]
            let first = try await stack.start(environment: environment)
            _ = try await stack.json("new", "--cwd", stack.workspace, "--name", "api")
            _ = await first.terminate()

            // Started again: the session's pi comes back at once, while the plugins start.
            _ = try await stack.start(environment: environment)
            let given = try await waitFor("both pis' variables", timeout: .seconds(60)) { () -> [[String]]? in
                let files = try FileManager.default.contentsOfDirectory(atPath: names).filter { !$0.hasSuffix(".tmp") }
                let lists = try files.map { try String(contentsOfFile: names + "/" + $0, encoding: .utf8).split(separator: "\n").map(String.init) }
                return lists.count == 2 && lists.allSatisfy { $0.contains("FAKE_PI_ENV_NAMES") } ? lists : nil
            }
            for list in given {
                #expect(!list.contains("TELEGRAM_BOT_TOKEN"), "a pi was given the bot token's variable")
                #expect(!list.contains("TRANSCRIBE_API_KEY"), "a pi was given the transcription key's variable")
                #expect(list.contains("FAKE_PI_SEED"), "the rest of the environment still reaches pi")
            }
        }
    }
}
