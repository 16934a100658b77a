import Logging
import MessengerKit
import PiRelaySDK
import Testing

@Suite struct HandoverTests {
    struct Receiver: ChatMessageReceiver {
        var answer: @Sendable () throws -> ChatMessageResult
        func chatMessage(_ params: ChatMessageParams, timeout: Duration) async throws -> ChatMessageResult { try answer() }
        func pair(_ chat: Chat, code: String) async -> Reply { Reply(text: "not asked here") }
    }

    static let params = ChatMessageParams(
        chat: Chat(messenger: "telegram", channel: "42", user: "42", dm: true), messageID: "42:7", text: "hello")

    static func handOver(_ answer: @escaping @Sendable () throws -> ChatMessageResult) async -> Handover {
        await Handover.chatMessage(params, to: Receiver(answer: answer), logger: Logger(label: "test"))
    }

    @Test func anAnswerIsPassedOn() async throws {
        let outcome = await Self.handOver { ChatMessageResult(status: .prompted) }
        guard case .answered(let result) = outcome else { Issue.record("\(outcome)"); return }
        #expect(result.status == .prompted)
    }

    @Test func aRefusalBecomesTheUsersReason() async {
        let refused = await Self.handOver { throw RemoteError(code: .notAuthorized, message: "no") }
        guard case .failed(let reason) = refused else { Issue.record("\(refused)"); return }
        #expect(reason == "Not authorized.")
        let broken = await Self.handOver { throw RemoteError(code: .internal, message: "boom") }
        guard case .failed(let other) = broken else { Issue.record("\(broken)"); return }
        #expect(other == "⚠️ pi-relayd could not take this message (internal). Try again.")
    }

    @Test func aSupervisorThatIsGoneKeepsTheMessage() async {
        let gone = await Self.handOver { throw RemoteError(code: .unavailable, message: "closed") }
        guard case .kept = gone else { Issue.record("\(gone)"); return }
    }
}
