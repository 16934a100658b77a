import FoundationEssentials
import Logging
import PiRelaySDK
import Synchronization

/// A service client's write budget: its pacer behind a lock, restored from `holds.json` at start
/// and saved there when a 429 holds a key (or the pacer spends what outlives a restart), so a
/// restarted plugin still waits out the service's `Retry-After`; and the send queue that hands
/// the budget's next place to the most urgent write waiting for it.
public final class PacerBudget<Pacer: QueuePacer>: Sendable {
    public static var file: String { "holds.json" }

    /// The pacer as the send queue's allowance.
    private final class Allowance: SendAllowance {
        let pacer: Mutex<Pacer>

        init(_ pacer: Pacer) {
            self.pacer = Mutex(pacer)
        }

        func wait(chat key: String, now: Double) -> Double {
            pacer.withLock { $0.wait(key: key, now: now) }
        }

        func wait(chat key: String, now: Double, keeping spare: Int) -> Double {
            pacer.withLock { $0.wait(key: key, now: now, keeping: spare) }
        }

        func take(chat key: String, now: Double) {
            pacer.withLock { $0.take(key: key, now: now) }
        }
    }

    private let allowance: Allowance
    private let store: StateStore?
    /// Each save's number, taken under the pacer's lock with its copy: saves from several chats'
    /// writes may reach the store out of order, and an older copy must not replace a 429's hold.
    private let saves = Atomic<Int>(0)
    /// Writes waiting for their place in the budget, by urgency.
    public let queue: SendQueue

    /// A budget over `pacer`, saved to `store` (nil: not saved). `clock`: seconds since 1970.
    public init(_ pacer: Pacer, store: StateStore? = nil, clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        allowance = Allowance(pacer)
        self.store = store
        queue = SendQueue(allowance: allowance, clock: clock)
    }

    /// A budget started now, with the holds a previous run saved in `store` that have not ended.
    public convenience init(restoredFrom store: StateStore?, logger: Logger) {
        self.init(.restored(from: store, file: Self.file, now: Date().timeIntervalSince1970, logger: logger), store: store)
    }

    /// Reads or changes the pacer under its lock.
    public func withPacer<Result>(_ body: (inout Pacer) -> Result) -> Result {
        allowance.pacer.withLock { body(&$0) }
    }

    /// Changes the pacer (a 429's hold) and saves what a restarted plugin must respect.
    public func hold(_ change: (inout Pacer) -> Void) async {
        withPacer(change)
        await save()
    }

    /// Saves what a restarted plugin must respect, in place (`StateStore.rewrite`), as it is
    /// saved before every write a chat takes. `durable: false` leaves out the flush: for what
    /// matters only seconds (a bucket refills long before a machine is back), not a 429's hold.
    public func save(durable: Bool = true) async {
        let (saved, version) = withPacer { ($0.saved(now: Date().timeIntervalSince1970), saves.add(1, ordering: .relaxed).newValue) }
        await store?.rewrite(saved, in: Self.file, version: version, durable: durable)
    }
}
