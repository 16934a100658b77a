/// The last running total seen per figure and plugin, so a total a plugin reports (restarts,
/// 429s) becomes increments of a Prometheus counter.
package struct RunningTotals: Sendable {
    private var seen: [String: Int] = [:]

    /// How much to add for `total`: the growth since the last look, or all of it when the total
    /// went down (the plugin was restarted and counts from zero again).
    package mutating func advance(_ figure: String, _ plugin: String, to total: Int) -> Int {
        let key = figure + "/" + plugin
        let last = seen[key] ?? 0
        seen[key] = total
        return total >= last ? total - last : total
    }
}
