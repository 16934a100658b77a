import FoundationEssentials
import Logging
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A versioned JSON list of records under `state/` (sessions.json, bindings.json), saved
/// atomically. Loading never drops data without a word:
/// - an older file is migrated forward, step by step, before its records are read;
/// - a file from a newer pi-relayd is refused (`Refused`) and left untouched, since saving
///   over it would lose what that version wrote;
/// - so is a file that is there but cannot be read (its owner, an I/O error): loaded as empty,
///   it would be saved over at the next change;
/// - a file that is not JSON at all is moved aside under a name of its own and reported;
/// - a record that cannot be read is kept in a `.rejected-…` file beside it and reported, and
///   the others load.
package struct StateFile<Record: Codable & Sendable>: Sendable {
    package let path: String
    /// The file's name, as `status` names it.
    package var name: String { path.split(separator: "/").last.map(String.init) ?? path }
    /// The key of the records in the file: `sessions`, `bindings`.
    package let key: String
    /// What one record is called in messages: "session", "binding".
    package let noun: String
    /// `migrations[n]` turns a file of version n + 1 into version n + 2 (the whole JSON object,
    /// `version` aside). The version written is `migrations.count + 1`.
    package var migrations: [@Sendable (JSONValue) throws -> JSONValue] = []
    /// The order records are written in, so the file diffs well.
    package var order: @Sendable (Record, Record) -> Bool

    package var version: Int { migrations.count + 1 }

    /// The records read, and what went wrong reading them (each already logged), for `status`.
    package struct Loaded: Sendable {
        package var records: [Record] = []
        package var problems: [String] = []
    }

    package struct Refused: Error, CustomStringConvertible {
        package let description: String
    }

    package func load(logger: Logger) throws(Refused) -> Loaded {
        let data: [UInt8]
        do {
            guard let file = try WholeRead.contents(path) else { return Loaded() }
            data = file.bytes
        } catch {
            throw Refused(
                description: "\(error). It is left as it is, since starting without its \(noun)s would save over them: "
                    + "give it back to the user pi-relayd runs as, or move it away.")
        }
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes: data)
        } catch {
            return Loaded(problems: [moveAside(reason: "\(error)", logger: logger)])
        }
        guard case .object = document else { return Loaded(problems: [moveAside(reason: "not a JSON object", logger: logger)]) }
        let found = document["version"]?.intValue ?? 1
        if found > version {
            throw Refused(
                description: "\(path) was written by a newer pi-relayd (file version \(found); this one "
                    + "reads up to \(version)). It is left as it is: run the newer pi-relayd, or move the file away "
                    + "to start without its \(noun)s.")
        }
        var migrated = document
        do {
            for step in migrations.dropFirst(max(0, found - 1)) { migrated = try step(migrated) }
        } catch {
            return Loaded(problems: [moveAside(reason: "cannot migrate it from version \(found): \(error)", logger: logger)])
        }
        if found < version { logger.notice("\(path): migrated from version \(found) to \(version)") }
        guard let items = migrated[key]?.arrayValue else {
            return Loaded(problems: [moveAside(reason: "no \(key) list in it", logger: logger)])
        }
        return decode(items, logger: logger)
    }

    package func save(_ records: [Record]) throws {
        try save(encoded: try records.sorted(by: order).map(encode))
    }

    /// One record as the file holds it: pretty, keys sorted, dates in ISO 8601, indented to sit
    /// in the list. Callers that save often keep these and encode only what changed.
    package func encode(_ record: Record) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var indented: [UInt8] = [0x20, 0x20, 0x20, 0x20]
        for byte in try encoder.encode(record) {
            indented.append(byte)
            if byte == 0x0A { indented.append(contentsOf: [0x20, 0x20, 0x20, 0x20]) }
        }
        return indented
    }

    /// Writes records made by `encode`, in the order given.
    package func save(encoded records: [[UInt8]]) throws {
        var file = Array("{\n  \"version\" : \(version),\n  \"\(key)\" : [\n".utf8)
        for (index, record) in records.enumerated() {
            file.append(contentsOf: record)
            file.append(contentsOf: index == records.count - 1 ? [0x0A] : [0x2C, 0x0A])
        }
        file.append(contentsOf: Array("  ]\n}\n".utf8))
        try AtomicFile.writeOrThrow(file, to: path)
    }

    /// Each record on its own: one bad record costs only itself, and it is kept.
    private func decode(_ items: [JSONValue], logger: Logger) -> Loaded {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var loaded = Loaded()
        var rejected: [JSONValue] = []
        var firstError = ""
        for item in items {
            do {
                loaded.records.append(try decoder.decode(Record.self, from: Data(item.serializedBytes())))
            } catch {
                if rejected.isEmpty { firstError = "\(error)" }
                rejected.append(item)
            }
        }
        guard !rejected.isEmpty else { return loaded }
        let kept = uniquePath(path + ".rejected-\(Int(Date().timeIntervalSince1970))")
        let file: JSONValue = ["version": JSONValue(version), .init(stringLiteral: key): .array(rejected)]
        let saved = AtomicFile.write(file.serializedBytes(), to: kept)
        let text =
            "\(path): \(rejected.count) \(noun) record(s) could not be read (\(firstError)); "
            + (saved ? "kept in \(kept); " : "could not keep them in \(kept); ") + "started with the other \(loaded.records.count)"
        logger.error("\(text)")
        loaded.problems.append(text)
        return loaded
    }

    /// The file is moved aside, not deleted, so a person can look at it.
    private func moveAside(reason: String, logger: Logger) -> String {
        let aside = uniquePath(path + ".corrupt-\(Int(Date().timeIntervalSince1970))")
        let moved = rename(path, aside) == 0
        let text =
            "\(path) is corrupt (\(reason)); " + (moved ? "moved it to \(aside)" : "could not move it aside")
            + " and started without its \(noun)s"
        logger.error("\(text)")
        return text
    }

    /// `base`, or `base-2`, `base-3`… when a file of that name exists (two in the same second).
    private func uniquePath(_ base: String) -> String {
        var candidate = base
        var suffix = 1
        while FileManager.default.fileExists(atPath: candidate) {
            suffix += 1
            candidate = "\(base)-\(suffix)"
        }
        return candidate
    }
}
