#if canImport(Glibc)
import Glibc
#endif

extension Double {
    /// The number with exactly `digits` digits after the point, as printf's `%.Nf` (Foundation's
    /// `String(format:)` is not in FoundationEssentials).
    package func fixedPoint(_ digits: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let written = withVaList([self]) { vsnprintf(&buffer, buffer.count, "%.\(digits)f", $0) }
        guard written > 0 else { return "\(self)" }
        return String(decoding: buffer.prefix(min(Int(written), buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
