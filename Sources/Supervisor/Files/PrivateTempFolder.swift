import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// A folder of this process's own in the temporary folder, for a child that must run somewhere
/// (pi for `doctor`, a plugin for `setup` and `plugin check`, the formatter for `render`). Made
/// by `mkdtemp`: a new name, 0700, and never one that is already there. A name known in advance
/// (`…-<pid>`) could be made first by another user of a shared /tmp, with files in it that pi
/// loads from its working folder (`.pi/extensions/`) and runs as whoever started it.
package enum PrivateTempFolder {
    package static func make(_ prefix: String) throws(RemoteError) -> String {
        var template = Array((UserFolders.temporary + "/" + prefix + "-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) != nil }
        guard made else {
            let why = String(cString: strerror(errno))
            throw RemoteError(code: .internal, message: "cannot make a scratch folder in \(UserFolders.temporary): \(why)")
        }
        return String(cString: template)
    }
}
