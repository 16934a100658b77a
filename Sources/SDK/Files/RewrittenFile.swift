import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Writes a small file over an older copy of itself, in place, for state rewritten at every step
/// of a stream (a live answer's messages, a send budget). Creating a temporary file and renaming
/// it over the old one (`AtomicFile`) made a new inode, dropped the old one and started its
/// write-back at every edit: a quarter of what the Discord plugin spent while 20 answers
/// streamed.
///
/// A writer killed in the middle of a write leaves that write torn, and a torn file may still
/// parse, with a number cut and spliced into the old one's. So the content lives in two slots,
/// the file itself and `PATH.b`, and each write goes over the older one: the newer stays whole.
/// Each slot starts with a line naming its sequence number, its length and a checksum of both
/// and of the content (`#rewritten SEQ LENGTH FNV1A64`), and a reader takes the newest slot whose
/// checksum holds. A file without that line (one written whole, by an earlier version) is the
/// oldest, unless it was written after the other slot (a version before this one ran since).
package enum RewrittenFile {
    static let magic = Array("#rewritten ".utf8)

    /// The newest sequence number written to each path by this process, and its slot: a write
    /// after the first needs no read. A restarted writer reads the slots again.
    private static let written = Mutex<[String: (sequence: UInt64, slot: Int)]>([:])

    package static func slots(_ path: String) -> [String] { [path, path + ".b"] }

    /// The newest whole content written to `path`, or nil when neither slot holds one.
    package static func read(_ path: String) -> [UInt8]? { newest(path)?.content }

    /// Writes `bytes` over the older slot; `durable` flushes it to the disk too. False when the
    /// disk refused.
    @discardableResult
    package static func write(_ bytes: [UInt8], to path: String, durable: Bool = false) -> Bool {
        (try? writeOrThrow(bytes, to: path, durable: durable)) != nil
    }

    /// `write`, saying why the disk refused (`AtomicFile.WriteError`).
    package static func writeOrThrow(_ bytes: [UInt8], to path: String, durable: Bool = false) throws {
        let last = written.withLock { $0[path] } ?? newest(path).map { ($0.sequence, $0.slot) }
        let sequence = (last?.sequence ?? 0) + 1
        let slot = last.map { 1 - $0.slot } ?? 0
        let header = "#rewritten \(sequence) \(bytes.count) \(checksum(sequence: sequence, bytes[...]))\n"
        let whole = Array(header.utf8) + bytes
        let fd = open(slots(path)[slot], O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AtomicFile.WriteError(description: "cannot open \(slots(path)[slot]): \(String(cString: strerror(errno)))") }
        var done = WholeWrite.write(fd, whole, at: 0)
        // What lies past the length is never read; a slot much longer than its content is cut.
        var status = stat()
        if done, fstat(fd, &status) == 0, Int(status.st_size) > whole.count + 4096 { done = ftruncate(fd, off_t(whole.count)) == 0 }
        if done, durable { done = fsync(fd) == 0 }
        let failure = errno
        close(fd)
        // A slot just made must outlive a power loss too: its folder's entry.
        if done, durable, !AtomicFile.syncFolder(of: path) {
            written.withLock { $0[path] = nil }
            throw AtomicFile.WriteError(description: "cannot sync the folder of \(path): \(String(cString: strerror(errno)))")
        }
        written.withLock { $0[path] = done ? (sequence, slot) : nil }
        if !done { throw AtomicFile.WriteError(description: "cannot write \(path): \(String(cString: strerror(failure)))") }
    }

    /// Deletes both slots.
    /// Deletes both slots, the second first: a kill in between leaves the file, not an orphan.
    package static func remove(_ path: String) {
        for slot in slots(path).reversed() { unlink(slot) }
        forget(path)
    }

    /// Forgets what this process wrote to `path`, as a restarted writer has (for tests).
    package static func forget(_ path: String) {
        _ = written.withLock { $0.removeValue(forKey: path) }
    }

    /// The slot with the highest sequence number whose content is whole. A file written whole
    /// counts as the oldest, or as the newest when it was written after the other slot.
    private static func newest(_ path: String) -> (sequence: UInt64, slot: Int, content: [UInt8])? {
        let files = slots(path)
        guard let first = contents(files[0]) else { return contents(files[1]).flatMap(parse).map { ($0.sequence, 1, $0.content) } }
        guard first.starts(with: magic) else {
            guard !first.isEmpty else { return contents(files[1]).flatMap(parse).map { ($0.sequence, 1, $0.content) } }
            guard let second = contents(files[1]).flatMap(parse), modified(files[1]) >= modified(files[0]) else { return (0, 0, first) }
            return (second.sequence, 1, second.content)
        }
        let parsed = [parse(first), contents(files[1]).flatMap(parse)]
        guard let slot = parsed.indices.filter({ parsed[$0] != nil }).max(by: { parsed[$0]!.sequence < parsed[$1]!.sequence }) else { return nil }
        return (parsed[slot]!.sequence, slot, parsed[slot]!.content)
    }

    /// When `path` was last written, in nanoseconds; 0 when it cannot be read.
    private static func modified(_ path: String) -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return Int(status.st_mtim.tv_sec) * 1_000_000_000 + Int(status.st_mtim.tv_nsec)
    }

    /// A slot's sequence number and content, when its header is whole and its checksum holds.
    static func parse(_ bytes: [UInt8]) -> (sequence: UInt64, content: [UInt8])? {
        guard let lineEnd = bytes.prefix(96).firstIndex(of: 0x0A) else { return nil }
        let fields = bytes[magic.count..<lineEnd].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 3, let sequence = UInt64(fields[0]), sequence < 1 << 62, let length = Int(fields[1]), length >= 0,
            bytes.count - lineEnd - 1 >= length
        else { return nil }
        let content = bytes[(lineEnd + 1)..<(lineEnd + 1 + length)]
        guard checksum(sequence: sequence, content) == fields[2] else { return nil }
        return (sequence, Array(content))
    }

    /// FNV-1a (`Digest`) of the sequence number, the length and the content: enough to tell a
    /// torn write from a whole one, a header torn after its number included.
    static func checksum(sequence: UInt64, _ bytes: ArraySlice<UInt8>) -> String {
        Digest.hex64(Digest.fnv1a64(bytes, seed: Digest.fnv1a64("\(sequence) \(bytes.count)\n")))
    }

    private static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }
}
