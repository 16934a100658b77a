import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// The parts of the supervisor's deliveries a messenger has carried out (each message of a long
/// answer, each file, each surplus live message deleted), in `sent.log`. A delivery repeated
/// after a crash (done, but the ack never reached the supervisor) does only what had not gone out.
public struct DeliveryParts: Sendable {
    public static var file: String { "sent.log" }
    private let ledger: DeliveryLedger

    /// The parts recorded in the plugin's state folder.
    public init(store: StateStore) {
        ledger = DeliveryLedger(path: store.path(Self.file))
    }

    /// Does `work` unless an earlier attempt did it; records it once done.
    public func once(_ key: String, _ work: () async throws -> Void) async throws {
        guard !(await ledger.contains(key)) else { return }
        try await work()
        await ledger.record(key)
    }

    /// A delivery's messages in order, each sent once (`DELIVERY:N`); `send` gets each with its
    /// index (the first carries a post's buttons).
    public func send(_ chunks: [String], of delivery: String, _ send: (_ index: Int, _ chunk: String) async throws -> Void) async throws {
        for (index, chunk) in chunks.enumerated() { try await once("\(delivery):\(index)") { try await send(index, chunk) } }
    }

    /// The files of a delivery, each uploaded once (`DELIVERY:fileN`) and then removed: the
    /// supervisor spooled them for this post alone. A file already gone was sent by an earlier
    /// attempt, or was never there to send.
    public func upload(_ files: [PostedFile], of delivery: String, _ send: (PostedFile) async throws -> Void) async throws {
        for (index, file) in files.enumerated() {
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            try await once("\(delivery):file\(index)") { try await send(file) }
            unlink(file.path)
        }
    }
}
