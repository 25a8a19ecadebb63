"""Built-in mappings (``--preset NAME``): one TOML file per source layout; see ``mapfile.py``.

``DESCRIPTIONS`` is the ``preset`` namespace of the i18n catalogue: each preset's ``description``
(its English, as the TOML writes it — tests/ingest/test_mapfile.py holds them equal) and its
Chinese, which ``trainledger presets`` prints in zh-CN."""

DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "alibaba-openb-2023": ("Alibaba openb pod list (cluster-trace-gpu-v2023)",
                           "阿里巴巴 openb Pod 列表（cluster-trace-gpu-v2023）"),
    "alibaba-pai-2020": ("Alibaba PAI per-worker mini-batch times (job_*_norm.csv)",
                         "阿里巴巴 PAI 各 worker 的 mini-batch 耗时（job_*_norm.csv）"),
    "aliyun-split-bill": ("an Alibaba Cloud split-item bill", "阿里云分账账单"),
    "helios": ("Helios per-minute GPU sequence (running / pending / idle GPUs and jobs)",
               "Helios 每分钟 GPU 序列（运行 / 排队 / 空闲的 GPU 与作业数）"),
    "helios-gpus": ("Helios GPUs per virtual cluster per day (date, one column per VC, total)",
                    "Helios 每个虚拟集群每天的 GPU 数（date、每个虚拟集群一列、total）"),
    "huawei-resource-bill": ("a Huawei Cloud resource detail bill", "华为云资源详单"),
    "openb-nodes": ("Alibaba openb node list (sn, cpu_milli, memory_mib, gpu, model)",
                    "阿里巴巴 openb 节点列表（sn、cpu_milli、memory_mib、gpu、model）"),
    "philly": ("Philly per-minute node sequence (active and total nodes)",
               "Philly 每分钟节点序列（活跃节点数与总节点数）"),
    "philly-vc": ("Philly virtual clusters and their nodes (vc, node num)",
                  "Philly 虚拟集群及其节点数（vc、node num）"),
    "slurm-trace": ("Helios / Acme Slurm job trace (job_id,user,vc,gpu_num,…,duration,queue)",
                    "Helios / Acme 的 Slurm 作业轨迹（job_id,user,vc,gpu_num,…,duration,queue）"),
    "volcengine-bill": ("a Volcano Engine bill detail", "火山引擎账单明细"),
    "wandb-history": ("a W&B run history (wandb-history.jsonl or a history CSV)",
                      "W&B 运行历史（wandb-history.jsonl 或历史 CSV）"),
}
