import PiRelaySDK
import Testing

@testable import FederationPlugin

/// Which requests from other machines wait for each other: one chat's (a thread is a chat of its
/// own, as the messengers' lanes have it), whichever machine holds a shared bot.
@Suite struct CourierLaneTests {
    static func request(from machine: String, _ messenger: String, channel: String, thread: String? = nil) -> ForwardedRequest {
        ForwardedRequest(
            machine: machine, messenger: messenger, method: .chatCommand,
            params: ChatCommandParams(chat: Chat(messenger: messenger, channel: channel, thread: thread, user: "u1", dm: false), name: "compact").json
        )
    }

    @Test func aChatsRequestsShareALaneAndOtherChatsAndThreadsDoNot() {
        let lane = { Courier.lane(Self.request(from: $0, $1, channel: $2, thread: $3)) }
        #expect(lane("laptop", "telegram", "42", nil) == lane("laptop", "telegram", "42", nil))
        #expect(lane("laptop", "telegram", "42", nil) != lane("laptop", "telegram", "43", nil))
        #expect(lane("laptop", "telegram", "42", nil) != lane("laptop", "telegram", "42", "7"), "a topic is a chat of its own")
        #expect(lane("laptop", "telegram", "42", nil) != lane("phone", "telegram", "42", nil), "two machines' own bots: two chats")
        #expect(lane("laptop", "*/telegram", "42", "7") == lane("phone", "*/telegram", "42", "7"), "a shared bot's chat, whoever holds it")
    }

    /// A request waiting in its chat's lane runs, or is refused at the take limit: never both.
    @Test func aRequestsTurnEitherStartsOrExpires() {
        let started = RequestTurn()
        #expect(started.start() && !started.expire() && started.start())
        let expired = RequestTurn()
        #expect(expired.expire() && !expired.start() && expired.expire())
    }
}
