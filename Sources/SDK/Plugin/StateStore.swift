import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A plugin's files in its state directory (`PluginContext.stateDir`), as JSON. Every write goes to a temporary file that is then
/// renamed over the old one, so a plugin killed mid-write leaves the previous version intact.
public actor StateStore {
    /// The folder, made at init if missing.
    public let directory: String
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    /// Writes the disk refused so far.
    public private(set) var failedWrites = 0
    /// Each file whose last write the disk refused, with why; a later write that succeeds (or
    /// the file's removal) takes it out.
    private var refused: [String: String] = [:]
    /// The newest version written of each file saved with one.
    private var versions: [String: Int] = [:]

    /// A store over `directory`.
    public init(directory: String) {
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The path of the file `name`.
    public nonisolated func path(_ name: String) -> String { directory + "/" + name }

    /// The stored value, or nil when the file is missing or unreadable (then the plugin starts
    /// afresh for that concern).
    public nonisolated func load<T: Decodable>(_ type: T.Type, from name: String) -> T? {
        guard let bytes = RewrittenFile.read(path(name)) else { return nil }
        return try? JSONDecoder().decode(type, from: Data(bytes))
    }

    /// Writes `value` atomically; false when the disk refused (logged by the caller).
    ///
    /// `durable: false` leaves out the flush to the disk. The file then survives the plugin's
    /// crash (the kernel has it) but maybe not the machine's. It is for state rewritten several
    /// times a second whose loss costs little: a live answer's message ids, a gateway's resume
    /// point. Flushing them was most of what the Discord plugin spent while 20 answers streamed.
    @discardableResult
    public func save<T: Encodable>(_ value: T, to name: String, durable: Bool = true) -> Bool {
        guard let data = try? encoder.encode(value) else { return false }
        return recording(name) { try AtomicFile.writeOrThrow([UInt8](data), to: path(name), durable: durable) }
    }

    /// Writes `value` unless a newer `version` of `name` was written already; true when it is
    /// on disk (its own write, or a newer one's). For a caller that takes its snapshots in order
    /// under a lock of its own but may reach the store out of order.
    @discardableResult
    public func save<T: Encodable>(_ value: T, to name: String, version: Int, durable: Bool = true) -> Bool {
        inOrder(name, version) { save(value, to: name, durable: durable) }
    }

    /// Writes `value` in place, over the older of the file's two copies, without a temporary
    /// file (`RewrittenFile`); false when the disk refused. For state rewritten at every step of
    /// a stream: a plugin killed in the middle of the write leaves the copy before it whole.
    /// `durable` flushes it to the disk too. A file is written either this way or by `save`,
    /// never both.
    @discardableResult
    public func rewrite<T: Encodable>(_ value: T, in name: String, durable: Bool = false) -> Bool {
        guard let data = try? encoder.encode(value) else { return false }
        return recording(name) { try RewrittenFile.writeOrThrow([UInt8](data), to: path(name), durable: durable) }
    }

    /// `rewrite` unless a newer `version` of `name` was written already, as `save(_:to:version:)`.
    @discardableResult
    public func rewrite<T: Encodable>(_ value: T, in name: String, version: Int, durable: Bool = false) -> Bool {
        inOrder(name, version) { rewrite(value, in: name, durable: durable) }
    }

    /// Runs `write` unless a newer version of `name` is on disk. A version counts as written
    /// only once the disk took it: after a newer write the disk refused, an older one still goes.
    private func inOrder(_ name: String, _ version: Int, _ write: () -> Bool) -> Bool {
        guard version > versions[name, default: .min] else { return true }
        guard write() else { return false }
        versions[name] = version
        return true
    }

    /// Deletes the file `name`.
    public func remove(_ name: String) {
        RewrittenFile.remove(path(name))
        refused[name] = nil
    }

    /// The files not saved as they are now, one line each ("questions.json not saved: cannot
    /// write …: No space left on device"): what the plugin's `status` answer reports as its
    /// `problems`, so that the owner hears of a full disk without reading the plugin's log.
    public var problems: [String] {
        refused.keys.sorted().map { "\($0) not saved: \(refused[$0]!)" }
    }

    private func recording(_ name: String, _ write: () throws -> Void) -> Bool {
        do {
            try write()
            refused[name] = nil
            return true
        } catch {
            refused[name] = "\(error)"
            failedWrites += 1
            return false
        }
    }
}
