import FMCache
public import Foundation
import Synchronization

/// A model file's identity for cache keys: a digest of its contents, so a cached result follows the model
/// wherever the file lives and never outlives a different model at the same path.
///
/// Hashing a whole model (hundreds of megabytes) would cost seconds per job, so the digest covers the file's
/// size and 16 windows of 64 KiB spread evenly from its first byte to its last. Two different models of the
/// same size differ within those windows: a retrained, merged or requantised model changes the tensor data
/// throughout, and the metadata at the start names it. Digests are remembered per path, size and
/// modification time for the life of the process.
public enum ModelIdentity {
    /// How many windows are hashed, and how large each is.
    static let windowCount = 16
    static let windowSize = 64 * 1024

    private static let known = Mutex<[String: String]>([:])

    /// The identity of the file at `url`: `"content-sha256:<hex>"`, or `"missing:<path>"` when it cannot be read.
    public static func of(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return "missing:" + path }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let memoKey = "\(path)|\(size)|\(modified)"
        if let digest = known.withLock({ $0[memoKey] }) { return digest }
        guard let handle = FileHandle(forReadingAtPath: path) else { return "missing:" + path }
        defer { try? handle.close() }
        var bytes = Array("\(size)|".utf8)
        let span = max(0, size - Int64(windowSize))
        for index in 0..<windowCount {
            let offset = windowCount == 1 ? 0 : span * Int64(index) / Int64(windowCount - 1)
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                let window = try? handle.read(upToCount: windowSize)
            else { return "missing:" + path }
            bytes.append(contentsOf: window)
        }
        let digest = "content-sha256:" + SHA256.hexDigest(bytes)
        known.withLock { $0[memoKey] = digest }
        return digest
    }
}
