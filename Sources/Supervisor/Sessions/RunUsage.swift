import PiRelaySDK

/// Tokens and cost of a run: the sum of its assistant messages' `usage`, as pi reports them.
struct RunUsage: Sendable, Equatable {
    var input = 0
    var output = 0
    var cacheRead = 0
    var cacheWrite = 0
    /// Dollars, pi's `usage.cost.total`.
    var cost = 0.0
    /// Messages that reported usage.
    var messages = 0

    var total: Int { input + output + cacheRead + cacheWrite }

    mutating func add(_ usage: JSONValue) {
        func count(_ key: String) -> Int { usage[key]?.intValue ?? 0 }
        input += count("input")
        output += count("output")
        cacheRead += count("cacheRead")
        cacheWrite += count("cacheWrite")
        cost += usage["cost"]?["total"]?.doubleValue ?? 0
        messages += 1
    }
}
