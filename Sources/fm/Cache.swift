import ArgumentParser
import FMCache
import FMEngine
import FMTagging
import Foundation

extension FM {
    /// `fm cache`: inspect or clear the result cache and the stored calibration tables.
    struct Cache: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage the tagging result cache and the stored calibration tables.",
            subcommands: [Clear.self, Info.self]
        )

        /// `fm cache clear`.
        struct Clear: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove every cached result and stored calibration table.")

            func run() async throws {
                do {
                    let removed = try ResultCache(url: ResultCache.defaultURL).clear()
                    print("removed \(removed) cached results from \(ResultCache.defaultURL.path)")
                } catch where ResultCache.isDamaged(error) {
                    // A damaged file cannot be opened to clear it; removing it is what clearing it means.
                    do {
                        _ = try ResultCache.removeFiles(at: ResultCache.defaultURL)
                        print("removed the damaged cache file \(ResultCache.defaultURL.path) (\(error))")
                    } catch {
                        throw CommandFailure("The damaged cache at \(ResultCache.defaultURL.path) cannot be removed: \(error)")
                    }
                } catch {
                    throw CommandFailure("The cache at \(ResultCache.defaultURL.path) cannot be cleared: \(error)")
                }
                guard let store = CalibrationStore.environment else { return }
                do {
                    print("removed \(try store.clear()) calibration tables from \(store.directory.path)")
                } catch {
                    throw CommandFailure("The calibration tables in \(store.directory.path) cannot be removed: \(error)")
                }
            }
        }

        /// `fm cache info`.
        struct Info: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show where the caches are and how many results and calibration tables they hold.")

            func run() async throws {
                let url = ResultCache.defaultURL
                // Looking is not writing: a cache that does not exist yet is not made here.
                if !FileManager.default.fileExists(atPath: url.path) {
                    print("\(url.path): 0 results (no cache file yet)")
                } else {
                    do {
                        print("\(url.path): \(try ResultCache(url: url).count()) results")
                    } catch {
                        throw CommandFailure("The cache at \(url.path) cannot be read: \(InputFile.reason(error))")
                    }
                }
                if let store = CalibrationStore.environment {
                    print("\(store.directory.path): \(store.files.count) calibration tables")
                }
            }
        }
    }
}
