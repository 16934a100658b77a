import PiRelaySDK
import Synchronization

/// The service refused the bot's token while the plugin ran (revoked or reset in the service's
/// console). A write refused so is not dropped: it stays with pi-relayd, unacknowledged, and the
/// plugin ends as not configured (exit 78), naming what to fix, so that `status` shows it and the
/// owner's new token gets everything that waited (the spec of each service: stop using a token
/// the service refused; never retry it in a loop).
package struct TokenRefusal: Sendable {
    private let refusals: AsyncStream<String>
    private let refused: AsyncStream<String>.Continuation
    private let flag = Flag()

    /// Shared by the copies: set once, never cleared (a new token means a new process).
    private final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    package init() {
        (refusals, refused) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(1))
    }

    /// `why`: what the owner reads, with the variable to fix; never the token.
    package func refuse(_ why: String) {
        flag.raised.store(true, ordering: .sequentiallyConsistent)
        refused.yield(why)
    }

    /// Whether the service refused the token in this run: set before the refused call throws,
    /// so the caller that swallowed its error (an inbox reply) can tell that what it meant to
    /// show was not shown, and keep it for the next start (`Inbox`'s `credentialsRefused`).
    package var isRefused: Bool { flag.raised.load(ordering: .sequentiallyConsistent) }

    /// Runs `service` (the relay's loop) until it ends; throws `PluginExit.notConfigured` at the
    /// first refusal, and the service is cancelled.
    package func ending(_ service: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await service() }
            group.addTask {
                // One consumer: the relay's run. Ends without a word when cancelled.
                for await why in refusals { throw PluginExit.notConfigured(why) }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}
