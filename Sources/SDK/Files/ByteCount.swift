/// Sizes as people read them: 512 bytes, 99 KB, 3.8 MB (binary units, at most one decimal).
package enum ByteCount {
    package static func describe(_ bytes: Int) -> String {
        if bytes == 1 { return "1 byte" }
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1024 * 1024 { return tenths(bytes, 1024) + " KB" }
        if bytes < 1024 * 1024 * 1024 { return tenths(bytes, 1024 * 1024) + " MB" }
        return tenths(bytes, 1024 * 1024 * 1024) + " GB"
    }

    private static func tenths(_ bytes: Int, _ unit: Int) -> String {
        let tenthCount = (bytes * 10 + unit / 2) / unit
        return tenthCount % 10 == 0 ? "\(tenthCount / 10)" : "\(tenthCount / 10).\(tenthCount % 10)"
    }
}
