import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer on one target: every fuzz executable's main hands its test function here.
///
/// SwiftPM gives each executable a main of its own, so the targets link libFuzzer without its
/// main and start it through `LLVMFuzzerRunDriver`, which takes libFuzzer's usual arguments
/// (`-max_total_time=60 CORPUS_DIR...`, or crash files to replay).
public enum FuzzDriver {
    public typealias Target = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

    public static func run(_ target: Target) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, target))
    }

    /// A broken property is a finding like a crash: libFuzzer saves the input that caused it.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        let text = "fuzz property broken: \(message())\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        abort()
    }
}
