import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The machine's own time zone by name: `TZ` when it holds one, else where /etc/localtime points
/// into the zone folder, else /etc/timezone, else UTC.
package enum SystemZone {
    package static func name(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if var tz = environment["TZ"], !tz.isEmpty {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if ZoneRules.isValidName(tz) { return tz }
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = target.split(separator: "zoneinfo/", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, ZoneRules.isValidName(String(parts[1])) { return String(parts[1]) }
        }
        if let data = FileManager.default.contents(atPath: "/etc/timezone") {
            let name = String(decoding: data, as: UTF8.self).trimmed()
            if ZoneRules.isValidName(name) { return name }
        }
        return "UTC"
    }
}
