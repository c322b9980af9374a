// Output files published together: a run's outputs appear all at once or not at all. Each file is written in full
// under a temporary name beside its target; publish() renames them only once every one has been written, and
// without publish() (an error, an exception) the temporary files and any folder made for them are removed.
//
//   check_output_target("out/recon.npy");          // before the run: a folder where a file must go fails now
//   StagedFiles staged;
//   write_tensor_file(staged.stage("out/recon.npy"), recon);
//   write_tensor_file(staged.stage("out/latent.npy"), latent);
//   staged.publish();
#pragma once

#include <string>
#include <vector>

namespace ie {

/// Throws Error(Usage) naming `target` unless a file could be written there: the target must not be a folder (or
/// other non-regular file), and its folder, or the nearest existing folder above it, must be a writable folder.
void check_output_target(const std::string& target);

class StagedFiles {
 public:
  StagedFiles() = default;
  /// Removes every staged file not yet published, and the folders stage() created.
  ~StagedFiles();
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;

  /// A temporary path in `target`'s folder (created if missing) with the same extension, so that a writer that
  /// picks the format by extension writes the same bytes. Throws Error(Usage) when the folder cannot be made.
  std::string stage(const std::string& target);
  /// Renames every staged file over its target. Checks all targets first, so a blocked one renames none.
  void publish();

 private:
  struct Entry {
    std::string temp, target;
  };
  std::vector<Entry> m_entries;
  std::vector<std::string> m_created_folders;  // deepest last
  bool m_published = false;
};

}  // namespace ie
