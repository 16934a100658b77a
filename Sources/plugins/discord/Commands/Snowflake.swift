import FoundationEssentials

/// Discord ids carry their creation time: (id >> 22) ms after 2015-01-01.
enum Snowflake {
    static let epochMilliseconds: UInt64 = 1_420_070_400_000

    static func date(_ id: String) -> Date? {
        guard let number = UInt64(id) else { return nil }
        return Date(timeIntervalSince1970: Double((number >> 22) + epochMilliseconds) / 1000)
    }
}
