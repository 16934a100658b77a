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
        guard let data = FileManager.default.contents(atPath: path(name)) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
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
        let target = path(name)
        let temporary = target + ".tmp"
        let written =
            durable
            ? FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
            : Self.write(data, to: temporary)
        guard written, rename(temporary, target) == 0 else {
            failedWrites += 1
            return false
        }
        return true
    }

    /// Writes `data` to a new file at `path`, mode 0600, with no flush.
    private static func write(_ data: Data, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        var complete = true
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(fd, base + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    complete = false
                    return
                }
                offset += count
            }
        }
        return close(fd) == 0 && complete
    }

    /// Deletes the file `name`.
    public func remove(_ name: String) {
        unlink(path(name))
    }
}
