// The public header used from C++: extern "C" linkage, no C-only constructs.
#include <cstdio>

#include "tauform.h"

int main() {
  tf_cloth_def def;
  tf_cloth_def_init(&def);
  const tf_api *api = tf_get_api(TF_VERSION_MAJOR);
  if (!api || def.struct_size != sizeof def || tf_version() != TF_VERSION) return 1;
  std::printf("%s\n", tf_status_name(TF_E_BAD_MESH));
  return 0;
}
