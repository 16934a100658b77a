import Logging
import PiRelaySDK

/// A messenger relay on the kit's core (its log, state, allowlist and ingress gate), whose writes
/// wait in each chat's `SendQueue`: lanes by chat and urgency (`ChatLanes`), so a question never
/// waits behind a notice held by the chat's send budget.
public protocol CoreMessengerRelay: MessengerRelay {
    var core: MessengerCore { get }
}

extension CoreMessengerRelay {
    public var logger: Logger { core.logger }
    public var allowlist: Allowlist { core.allowlist }

    public func lane(of method: String, params: JSONValue) -> String {
        ChatLanes.lane(of: method, params: params)
    }
}
