#if canImport(Glibc)
import Glibc
#endif

/// The process's resident set size from /proc/self/status (Linux only).
enum ResidentMemory {
    /// VmRSS in bytes, or nil where /proc is unavailable.
    static func current() -> Int? {
        #if os(Linux)
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmRSS:") {
                let digits = text.dropFirst(6).filter(\.isNumber)
                return Int(digits).map { $0 * 1024 }
            }
        }
        return nil
        #else
        return nil
        #endif
    }
}
