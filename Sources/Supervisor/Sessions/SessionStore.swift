import Foundation
import Logging

/// Saves session records under `state/` atomically. A corrupt file is moved aside with a
/// warning and the daemon starts without it: never a crash.
struct SessionStore: Sendable {
    let path: String

    struct File: Codable {
        var version = 1
        var sessions: [SessionRecord]
    }

    func load(logger: Logger) -> [SessionRecord] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        do {
            let d = JSONDecoder()
            d.dateDecodingStrategy = .iso8601
            return try d.decode(File.self, from: data).sessions
        } catch {
            let aside = path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
            rename(path, aside)
            logger.warning("\(path) is corrupt (\(error)); moved it to \(aside) and started without it")
            return []
        }
    }

    func save(_ records: [SessionRecord]) throws {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try e.encode(File(sessions: records.sorted { $0.createdAt < $1.createdAt }))
        try AtomicFile.writeOrThrow([UInt8](data), to: path)
    }
}
