/* Links the installed library and checks the header and library agree. */
#include <stdio.h>

#include "tauform.h"

int main(void) {
  if (tf_version() != TF_VERSION || tf_get_api(TF_VERSION_MAJOR) == NULL) {
    fprintf(stderr, "header/library mismatch\n");
    return 1;
  }
  printf("tauform %s found\n", tf_version_string());
  return 0;
}
