import Foundation
import Logging

/// Saves bindings under `state/` atomically; a corrupt file is moved aside, never fatal.
struct BindingStore: Sendable {
    let path: String

    struct File: Codable {
        var version = 1
        var bindings: [Binding]
    }

    func load(logger: Logger) -> [Binding] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        do {
            let d = JSONDecoder()
            d.dateDecodingStrategy = .iso8601
            return try d.decode(File.self, from: data).bindings
        } catch {
            let aside = path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
            rename(path, aside)
            logger.warning("\(path) is corrupt (\(error)); moved it to \(aside) and started without it")
            return []
        }
    }

    func save(_ bindings: [Binding]) throws {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.writeOrThrow([UInt8](try e.encode(File(bindings: bindings.sorted { $0.key < $1.key }))), to: path)
    }
}
