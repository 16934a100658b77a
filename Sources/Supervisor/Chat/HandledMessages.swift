import Foundation
import Logging

/// Chat messages already acted on, by messenger and message id. A messenger that crashes while
/// its `chat.message` is in flight hands the message over again when it is back (the Discord
/// plugin journals what it took in); without this, the prompt would reach pi twice. The newest
/// `limit` ids are kept, and saved under `state/` so a restarted daemon still knows them.
struct HandledMessages: Sendable {
    static let limit = 4000

    let path: String
    private var order: [String] = []
    private var known: Set<String> = []

    struct File: Codable {
        var version = 1
        var ids: [String]
    }

    init(path: String, logger: Logger) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else { return }
        do {
            let ids = try JSONDecoder().decode(File.self, from: data).ids
            order = Array(ids.suffix(Self.limit))
            known = Set(order)
        } catch {
            // Losing this list only risks a repeat of a message handed over twice; never fatal.
            logger.warning("\(path) is unreadable (\(error)); starting with no record of handled chat messages")
        }
    }

    func contains(_ key: String) -> Bool { known.contains(key) }

    /// Records `key`; false when it was already there.
    mutating func insert(_ key: String) -> Bool {
        guard known.insert(key).inserted else { return false }
        order.append(key)
        if order.count > Self.limit {
            let drop = order.count - Self.limit
            for old in order.prefix(drop) { known.remove(old) }
            order.removeFirst(drop)
        }
        return true
    }

    /// Forgets `key`: its handling failed, so the messenger's retry must be acted on.
    mutating func remove(_ key: String) {
        guard known.remove(key) != nil else { return }
        order.removeAll { $0 == key }
    }

    func save() throws {
        try AtomicFile.writeOrThrow([UInt8](try JSONEncoder().encode(File(ids: order))), to: path)
    }
}
