"""Packaging driven by settings.ini (nbdev 2 convention); no pkg_resources."""
from configparser import ConfigParser
import setuptools

cfg = ConfigParser(delimiters=['='])
cfg.read('settings.ini', encoding='utf-8')
cfg = cfg['DEFAULT']

reqs = cfg.get('requirements', '').split()
neuron_reqs = cfg.get('neuron_requirements', '').split()   # only on Neuron's own package index (see README)
extras = {name: cfg.get(f'{name}_requirements', '').split() for name in ('torch', 'onnx', 'peers', 'jax', 'docs')}
extras['dev'] = cfg.get('dev_requirements', '').split() + sum(extras.values(), [])   # dev: everything
extras['neuron'] = neuron_reqs
# the deployment runtimes of chapter R13: heavy installs, for the slow tier only (not part of dev)
extras['runtimes'] = cfg.get('runtimes_requirements', '').split()
scripts = [s.strip() for s in cfg.get('console_scripts', '').split('\n') if s.strip()]

setuptools.setup(
    name=cfg['lib_name'],
    version=cfg['version'],
    description=cfg['description'],
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    author=cfg['author'],
    author_email=cfg['author_email'],
    license='Apache-2.0',
    url=cfg['git_url'],
    packages=setuptools.find_packages(include=[cfg['lib_name'], cfg['lib_name'] + '.*']),
    include_package_data=True,
    install_requires=reqs,
    extras_require=extras,
    python_requires='>=' + cfg['min_python'],
    entry_points={'console_scripts': scripts, 'nbdev': [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
    classifiers=['Programming Language :: Python :: 3'],      # the licence is the SPDX expression above
    project_urls={'Source': cfg['git_url']},
    zip_safe=False,
)
