#if canImport(Glibc)
import Glibc
#endif

/// The name of this machine among the user's machines (`machine:` in config.yaml): shown with
/// its sessions, and what `/use laptop api` and `/to laptop/api` name. Letters, digits, `.`,
/// `_` and `-`, at most 63, starting with a letter or digit, so that it never holds the `/` of
/// `/to MACHINE/SESSION` or a space a chat command would split at.
package enum MachineName {
    package static let maxLength = 63

    package static func isValid(_ name: some StringProtocol) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= maxLength, isAlphanumeric(first) else { return false }
        return name.unicodeScalars.allSatisfy { isAlphanumeric($0) || $0 == "." || $0 == "_" || $0 == "-" }
    }

    /// The default: the host name's first label (`laptop` of `laptop.local`), with anything a
    /// name may not hold made `-`; `localhost` when the system has none.
    package static var host: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let full = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return fromHost(full)
    }

    /// `host` for a given host name.
    package static func fromHost(_ full: String) -> String {
        let label = full.split(separator: ".").first.map(String.init) ?? ""
        var name = String(
            String.UnicodeScalarView(
                label.unicodeScalars.map { isAlphanumeric($0) || $0 == "_" || $0 == "-" ? $0 : "-" }.prefix(maxLength)))
        while let first = name.unicodeScalars.first, !isAlphanumeric(first) { name.removeFirst() }
        return name.isEmpty ? "localhost" : name
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
