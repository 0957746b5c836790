"""Map the repository's root folders onto the import package `ferrox`.

`ferrox/` holds the top-level module; `dialects/`, `passes/`, `lowering/` and `driver/` become
`ferrox.dialects`, ... with every package below them found automatically, so a new subpackage
needs no edit here.
"""

from setuptools import find_packages, setup

SUBPACKAGES = ("dialects", "passes", "lowering", "targets", "driver", "frontend")

packages = ["ferrox"]
package_dir = {"ferrox": "ferrox"}
for folder in SUBPACKAGES:
    packages.append(f"ferrox.{folder}")
    package_dir[f"ferrox.{folder}"] = folder
    for sub in find_packages(folder):
        packages.append(f"ferrox.{folder}.{sub}")
        package_dir[f"ferrox.{folder}.{sub}"] = f"{folder}/" + sub.replace(".", "/")

# The templates of `ferrox new` (driver/tools/scaffold/templates/**, every file a .tmpl).
package_data = {"": ["*.mlir"], "ferrox.driver.tools.scaffold": ["templates/**/*.tmpl"]}

setup(packages=packages, package_dir=package_dir, package_data=package_data)
