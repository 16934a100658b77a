/// What a `StateFile` writes: `{"version": N, "<key>": [records]}`, the key named at run time.
struct StateFileContents<Record: Encodable>: Encodable {
    let version: Int
    let key: String
    let records: [Record]

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(version, forKey: Key(stringValue: "version"))
        try container.encode(records, forKey: Key(stringValue: key))
    }
}
