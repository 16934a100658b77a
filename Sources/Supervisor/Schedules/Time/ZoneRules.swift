import FoundationEssentials
import PiRelaySDK

/// A named time zone's offsets over time, read from the system's tzdata (TZif files, RFC 8536) so
/// that no calendar library (full Foundation's ICU) is needed. Offsets are seconds east of UTC.
package struct ZoneRules: Sendable {
    /// The zone's name as the user wrote it (`Europe/Berlin`, `UTC`).
    package let name: String
    /// Instants (UTC seconds) at which the offset changes, ascending, and the offset from each.
    let transitions: [Int64]
    let offsets: [Int]
    /// The offset before the first transition.
    let initialOffset: Int
    /// The footer's rule, for times after the last transition.
    let rule: PosixZoneRule?

    package static let utc = ZoneRules(name: "UTC", transitions: [], offsets: [], initialOffset: 0, rule: nil)

    init(name: String, transitions: [Int64], offsets: [Int], initialOffset: Int, rule: PosixZoneRule?) {
        self.name = name
        self.transitions = transitions
        self.offsets = offsets
        self.initialOffset = initialOffset
        self.rule = rule
    }

    /// The zone `name`, from `directory` (`TZDIR`, else /usr/share/zoneinfo).
    package static func named(_ name: String, directory: String? = nil) throws(ZoneError) -> ZoneRules {
        guard isValidName(name) else { throw ZoneError(name: name, reason: "is not a time zone name such as Europe/Berlin or UTC") }
        let folder = directory ?? ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo"
        guard let data = FileManager.default.contents(atPath: folder + "/" + name) else {
            if name == "UTC" || name == "Etc/UTC" { return utc }
            throw ZoneError(name: name, reason: "is not a time zone in \(folder) (install tzdata, or check the name: Area/City)")
        }
        return try ZoneRules(name: name, tzif: Array(data))
    }

    /// Letters, digits and `/_-+`, no `..`: a name is a path below the zone folder and nothing else.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.hasPrefix("/") && !name.contains("..")
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/_-+".contains($0)) }
    }

    /// Reads a TZif file: version 1's 32-bit data is skipped for version 2's 64-bit data and footer.
    package init(name: String, tzif bytes: [UInt8]) throws(ZoneError) {
        func bad(_ what: String) -> ZoneError { ZoneError(name: name, reason: "has a damaged tzdata file (\(what))") }
        var reader = TZifReader(bytes: bytes)
        guard let header = reader.header(), header.magic else { throw bad("no TZif header") }
        var counts = header.counts
        var timeSize = 4
        if header.version >= 2 {
            guard reader.skip(counts.v1Length(timeSize: 4)), let second = reader.header(), second.magic else { throw bad("no second header") }
            counts = second.counts
            timeSize = 8
        }
        var transitions: [Int64] = []
        for _ in 0..<counts.times {
            guard let time = reader.integer(size: timeSize) else { throw bad("transitions cut short") }
            transitions.append(time)
        }
        var typeIndexes: [Int] = []
        for _ in 0..<counts.times {
            guard let index = reader.integer(size: 1) else { throw bad("transition types cut short") }
            typeIndexes.append(Int(index & 0xFF))
        }
        var typeOffsets: [Int] = []
        var typeIsDST: [Bool] = []
        for _ in 0..<counts.types {
            guard let offset = reader.integer(size: 4), let dst = reader.integer(size: 1), reader.skip(1) else { throw bad("types cut short") }
            typeOffsets.append(Int(offset))
            typeIsDST.append(dst != 0)
        }
        guard !typeOffsets.isEmpty, typeIndexes.allSatisfy({ $0 < typeOffsets.count }) else { throw bad("no local time types") }
        guard reader.skip(counts.chars + counts.leaps * (timeSize + 4) + counts.standardFlags + counts.utFlags) else {
            throw bad("tables cut short")
        }
        var rule: PosixZoneRule?
        if header.version >= 2, let footer = reader.footer(), !footer.isEmpty {
            guard let parsed = PosixZoneRule(footer) else {
                throw ZoneError(name: name, reason: "has a footer rule this reader does not know: \(footer)")
            }
            rule = parsed
        }
        self.init(
            name: name, transitions: transitions, offsets: typeIndexes.map { typeOffsets[$0] }, initialOffset: typeOffsets[0], rule: rule)
    }

    /// The offset at `utc` seconds.
    package func offset(at utc: Int64) -> Int {
        guard let last = transitions.last else { return rule?.offset(at: utc) ?? initialOffset }
        if utc >= last, let rule { return rule.offset(at: utc) }
        guard utc >= transitions[0] else { return initialOffset }
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= utc { low = middle } else { high = middle - 1 }
        }
        return offsets[low]
    }

    /// The wall-clock time at `utc` seconds.
    package func civil(at utc: Int64) -> CivilTime { CivilTime(seconds: utc + Int64(offset(at: utc))) }

    /// The instants a wall-clock time names, earliest first: one, or two where the clock is set
    /// back and the hour comes twice. A time the clock skips (set forward) names the instant as
    /// far after the change as the time was, as the clock before the change would have read it:
    /// 02:30 in a gap from 02:00 to 03:00 is 03:30.
    package func instants(of local: CivilTime) -> [Int64] {
        let valid = shown(local)
        if !valid.isEmpty { return valid }
        return [local.seconds - Int64(offset(at: local.seconds - 86_400))]
    }

    /// Whether the clock shows `local` at all (not in a gap it skips when set forward).
    package func shows(_ local: CivilTime) -> Bool { !shown(local).isEmpty }

    /// The instants at which the clock shows `local`, earliest first; none in a gap.
    private func shown(_ local: CivilTime) -> [Int64] {
        let seconds = local.seconds
        let candidates = Set([offset(at: seconds - 86_400), offset(at: seconds), offset(at: seconds + 86_400)])
        return candidates.map { seconds - Int64($0) }.filter { Int64(offset(at: $0)) == seconds - $0 }.sorted()
    }

    /// The first instant of `local`, as a schedule takes it (the first of a repeated hour).
    package func instant(of local: CivilTime) -> Int64 { instants(of: local)[0] }
}
