#include "AutodiffUtil.h"
