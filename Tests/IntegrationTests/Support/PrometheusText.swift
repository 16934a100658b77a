/// Prometheus' text exposition read into samples: `name{labels}` to its value. Comment lines are
/// skipped. Written for the tests alone.
struct PrometheusText {
    let lines: [String]
    private let samples: [String: Double]

    init(_ text: String) {
        lines = text.split(separator: "\n").map(String.init)
        var samples: [String: Double] = [:]
        for line in lines where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        self.samples = samples
    }

    subscript(series: String) -> Double? { samples[series] }
}
