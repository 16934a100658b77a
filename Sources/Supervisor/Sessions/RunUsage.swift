import PiRelaySDK

/// Tokens and cost of a run: the sum of its assistant messages' `usage`, as pi reports them.
package struct RunUsage: Sendable, Equatable {
    package var input = 0
    package var output = 0
    package var cacheRead = 0
    package var cacheWrite = 0
    /// Dollars, pi's `usage.cost.total`.
    package var cost = 0.0
    /// Messages that reported usage.
    package var messages = 0

    package var total: Int { input + output + cacheRead + cacheWrite }

    package mutating func add(_ usage: JSONValue) {
        func count(_ key: String) -> Int { usage[key]?.intValue ?? 0 }
        input += count("input")
        output += count("output")
        cacheRead += count("cacheRead")
        cacheWrite += count("cacheWrite")
        cost += usage["cost"]?["total"]?.doubleValue ?? 0
        messages += 1
    }
}
