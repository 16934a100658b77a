import Logging
import PiRelaySDK

/// A message taken in, handed to the supervisor as `chat.message`, and what the messenger must do
/// next. The journal keeps a message until its hand-over is `answered` or `failed`; `kept` means
/// pi-relayd is gone (being stopped), and the next start hands it over again.
public enum Handover: Sendable {
    /// The supervisor took it: the result says what became of it, and may carry a reply.
    case answered(ChatMessageResult)
    /// The supervisor refused it: the reason is for the user, in their chat.
    case failed(reason: String)
    /// Not handed over; the message stays in the journal.
    case kept

    /// How long the supervisor may take to answer a `chat.message`: longer than its longest
    /// answer (a `/compact` waits up to 10 minutes for pi). A message given up here while
    /// pi-relayd still works on it would be dropped with "try again", and run twice when the user
    /// did.
    public static let timeout: Duration = .seconds(660)

    /// Hands `params` over to `receiver`, logging a failure under the message's id.
    public static func chatMessage(_ params: ChatMessageParams, to receiver: some ChatMessageReceiver, logger: Logger) async -> Handover {
        let id = params.messageID ?? "(no id)"
        do {
            return .answered(try await receiver.chatMessage(params, timeout: timeout))
        } catch let error as RemoteError where error.code != .unavailable {
            logger.warning("chat.message for \(id) failed: \(error)")
            let reason = error.code == .notAuthorized ? "Not authorized." : "⚠️ pi-relayd could not take this message (\(error.code)). Try again."
            return .failed(reason: reason)
        } catch {
            logger.warning("chat.message for \(id) not handed over: \(error)")
            return .kept
        }
    }
}
