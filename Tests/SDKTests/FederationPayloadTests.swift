import PiRelaySDK
import Testing

/// What crosses machines, read from what another machine (or anyone who can write the
/// database) wrote: what is missing is an error, never a guess, and a channel that names no
/// other machine is a local one.
@Suite struct FederationPayloadTests {
    @Test func forwardedPayloadsMissingWhatTheyNeedAreRefused() {
        #expect(throws: RemoteError.self) { try ForwardedRequest(json: ["messenger": "telegram", "method": "chat.message"]) }
        #expect(throws: RemoteError.self) { try ForwardedRequest(json: ["machine": "desktop", "method": "chat.message"]) }
        #expect(throws: RemoteError.self) { try ForwardedDelivery(json: ["method": "chat.post"]) }
        #expect(throws: RemoteError.self) { try IngressChange(json: ["active": true]) }
        #expect(throws: RemoteError.self) { try IngressCursor(json: ["messenger": "telegram"]) }
        #expect(throws: RemoteError.self) { try MessageClaim(json: ["messenger": "telegram"]) }
        #expect(throws: RemoteError.self) { try MachineSummary(json: ["name": "desktop"]) }
        #expect(throws: RemoteError.self) { try ChatPicks(json: ["picks": [:]]) }
        #expect(throws: RemoteError.self) { try FederationReport(json: .array([])) }
    }

    @Test func aForwardedRequestKeepsAnUnknownMethodAndDropsAnUnknownDialect() throws {
        let request = try ForwardedRequest(
            json: ["machine": "desktop", "messenger": "telegram", "method": "chat.teapot", "dialect": "klingon", "limits": ["maxMessageLength": 9]])
        #expect(request.method == .other("chat.teapot") && request.dialect == nil && request.limits == ["maxMessageLength": 9])
    }

    @Test func aRemoteChannelIsReadOnlyFromThreeParts() {
        #expect(RemoteChannel(encoded: "123") == nil, "a local channel")
        #expect(RemoteChannel(encoded: "laptop/telegram") == nil)
        #expect(RemoteChannel(encoded: "/telegram/123") == nil && RemoteChannel(encoded: "laptop//123") == nil)
        let remote = RemoteChannel(encoded: "*/slack/C1/thread")
        #expect(remote == RemoteChannel(machine: "*", messenger: "slack", channel: "C1/thread"), "the channel keeps its own slashes")
        #expect(remote?.encoded == "*/slack/C1/thread" && remote?.messengerName == "*/slack")
        #expect(RemoteChannel.isRemote(messenger: "laptop/telegram") && !RemoteChannel.isRemote(messenger: "telegram"))
    }

    /// A shared messenger is named alike on every machine, and its name gives the messenger back.
    @Test func aSharedMessengerIsNamedAlikeOnEveryMachine() {
        #expect(RemoteChannel.sharedMessenger("telegram") == "*/telegram")
        #expect(RemoteChannel.isShared(messenger: "*/telegram") && !RemoteChannel.isShared(messenger: "laptop/telegram"))
        #expect(RemoteChannel.baseMessenger("*/telegram") == "telegram")
        #expect(RemoteChannel.baseMessenger("telegram") == "telegram" && RemoteChannel.baseMessenger("laptop/telegram") == "laptop/telegram")
    }
}
