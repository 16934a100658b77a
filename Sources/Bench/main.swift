#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// pi-relayd-bench: measurements of the relay's hot paths. One subcommand per measured path;
/// arguments are parsed by hand to keep the benchmark free of dependencies.
let arguments = Array(CommandLine.arguments.dropFirst())

func printUsage() {
    let usage = """
        usage: pi-relayd-bench <command>

        commands:
          read    read a pi --mode rpc stdout stream from stdin; prints events=N deltaChars=M
                  (--standard-pipe: leave a pipe on stdin at 64 KiB, where pi-relayd grows it)

        """
    StandardError.emit(usage)
}

switch arguments.first {
case "read":
    exit(ReadCommand(arguments: Array(arguments.dropFirst()))?.run() ?? 64)
case "-h", "--help", "help":
    printUsage()
    exit(0)
default:
    printUsage()
    exit(64)
}
